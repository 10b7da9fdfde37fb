// What a user includes to serialize: the entry point,
// bitrep::serialize(stream, value), with the codec of every kind (codec.hpp
// holds the entry point and codec<T>; codecs/ one file per kind). Delta,
// save files and replication reuse these codecs; nothing else knows how a
// kind is written.
#pragma once

#include <bitrep/codec.hpp>
#include <bitrep/codecs/adapted.hpp>
#include <bitrep/codecs/bitset.hpp>
#include <bitrep/codecs/bounded_map.hpp>
#include <bitrep/codecs/bounded_string.hpp>
#include <bitrep/codecs/classes.hpp>
#include <bitrep/codecs/containers.hpp>
#include <bitrep/codecs/delta_small.hpp>
#include <bitrep/codecs/duration.hpp>
#include <bitrep/codecs/entity_array.hpp>
#include <bitrep/codecs/field_flags.hpp>
#include <bitrep/codecs/flags.hpp>
#include <bitrep/codecs/proxy.hpp>
#include <bitrep/codecs/quantized.hpp>
#include <bitrep/codecs/quat.hpp>
#include <bitrep/codecs/ranged.hpp>
#include <bitrep/codecs/scalars.hpp>
#include <bitrep/codecs/tuple.hpp>
#include <bitrep/codecs/unsupported.hpp>
#include <bitrep/codecs/variant.hpp>
