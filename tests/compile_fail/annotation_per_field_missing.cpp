// expect: annotate<T>::fields: one entry per field of T
// expect: one_annotation_per_field<engine::Transform, 2(UL)?, 3(UL)?>
#include <bitrep/bitrep.hpp>
namespace engine { struct Transform { float x, y, z; }; }
// z has no entry (bitrep::as_is would send it as it is).
template <> struct bitrep::annotate<engine::Transform> {
    using fields = std::tuple<bitrep::quantized<-512.f, 512.f, 0.01f>, bitrep::quantized<-512.f, 512.f, 0.01f>>;
};
int main() { return static_cast<int>(bitrep::bit_size(engine::Transform{})); }
