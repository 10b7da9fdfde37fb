// Deltas on the engine (engine/delta.hpp): the delta walk (delta_walk.hpp,
// with its containers' and rotations' parts) compiled once for every
// stream and every type. A part sent in full uses the kinds' own rules
// (kinds.hpp); sameness and assignment are in compare.cpp.
#include <bitrep/engine/delta.hpp>

#include "delta_codes.hpp"
#include "delta_elements.hpp"
#include "delta_walk.hpp"
#include "values.hpp"

namespace bitrep::engine {

template <class Stream>
bool delta(Stream& stream, const field_entry& entry, const void* older, const void* base, void* value,
           element_hints hints)
{
    scratch work;
    deltas::walk<Stream> w{stream, work, hints};
    return w.delta(entry, ptr(older), ptr(base), static_cast<bytes*>(value));
}

template <class Stream>
bool changed(Stream& stream, const field_entry& entry, const void* older, const void* base, void* value)
{
    scratch work;
    deltas::walk<Stream> w{stream, work};
    return w.changed_part(entry, ptr(older), ptr(base), static_cast<bytes*>(value));
}

bool read_whole(basic_read_stream<scope::save>& stream, const field_entry& entry, void* value)
{
    scratch work;
    deltas::walk<basic_read_stream<scope::save>> w{stream, work};
    return w.whole(entry, static_cast<bytes*>(value));
}

template bool delta(basic_write_stream<scope::all>&, const field_entry&, const void*, const void*, void*, element_hints);
template bool delta(basic_read_stream<scope::all>&, const field_entry&, const void*, const void*, void*, element_hints);
template bool delta(basic_measure_stream<scope::all>&, const field_entry&, const void*, const void*, void*, element_hints);
template bool delta(basic_coded_write_stream<scope::all>&, const field_entry&, const void*, const void*, void*, element_hints);
template bool delta(basic_coded_read_stream<scope::all>&, const field_entry&, const void*, const void*, void*, element_hints);
template bool delta(basic_write_stream<scope::save>&, const field_entry&, const void*, const void*, void*, element_hints);
template bool delta(basic_read_stream<scope::save>&, const field_entry&, const void*, const void*, void*, element_hints);
template bool delta(basic_measure_stream<scope::save>&, const field_entry&, const void*, const void*, void*, element_hints);
template bool delta(basic_coded_write_stream<scope::save>&, const field_entry&, const void*, const void*, void*, element_hints);
template bool delta(basic_coded_read_stream<scope::save>&, const field_entry&, const void*, const void*, void*, element_hints);
template bool delta(basic_write_stream<scope::replication>&, const field_entry&, const void*, const void*, void*, element_hints);
template bool delta(basic_read_stream<scope::replication>&, const field_entry&, const void*, const void*, void*, element_hints);
template bool delta(basic_measure_stream<scope::replication>&, const field_entry&, const void*, const void*, void*, element_hints);
template bool delta(basic_coded_write_stream<scope::replication>&, const field_entry&, const void*, const void*,
                    void*, element_hints);
template bool delta(basic_coded_read_stream<scope::replication>&, const field_entry&, const void*, const void*, void*, element_hints);
template bool changed(basic_write_stream<scope::all>&, const field_entry&, const void*, const void*, void*);
template bool changed(basic_read_stream<scope::all>&, const field_entry&, const void*, const void*, void*);
template bool changed(basic_measure_stream<scope::all>&, const field_entry&, const void*, const void*, void*);
template bool changed(basic_coded_write_stream<scope::all>&, const field_entry&, const void*, const void*, void*);
template bool changed(basic_coded_read_stream<scope::all>&, const field_entry&, const void*, const void*, void*);
template bool changed(basic_write_stream<scope::save>&, const field_entry&, const void*, const void*, void*);
template bool changed(basic_read_stream<scope::save>&, const field_entry&, const void*, const void*, void*);
template bool changed(basic_measure_stream<scope::save>&, const field_entry&, const void*, const void*, void*);
template bool changed(basic_coded_write_stream<scope::save>&, const field_entry&, const void*, const void*, void*);
template bool changed(basic_coded_read_stream<scope::save>&, const field_entry&, const void*, const void*, void*);
template bool changed(basic_write_stream<scope::replication>&, const field_entry&, const void*, const void*, void*);
template bool changed(basic_read_stream<scope::replication>&, const field_entry&, const void*, const void*, void*);
template bool changed(basic_measure_stream<scope::replication>&, const field_entry&, const void*, const void*, void*);
template bool changed(basic_coded_write_stream<scope::replication>&, const field_entry&, const void*, const void*, void*);
template bool changed(basic_coded_read_stream<scope::replication>&, const field_entry&, const void*, const void*, void*);
template bool changed(basic_coded_record_stream<scope::replication>&, const field_entry&, const void*, const void*,
                      void*);

} // namespace bitrep::engine
