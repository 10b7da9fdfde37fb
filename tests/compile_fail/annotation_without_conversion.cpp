// expect: annotate<T>::fields: an annotation must convert from the field's type and back
// expect: converts_to_and_from<bitrep::reflect::positional_field<engine::Transform, 1>, bitrep::bounded_string<8> ?>
#include <bitrep/bitrep.hpp>
namespace engine { struct Transform { float x; int y; }; }
template <> struct bitrep::annotate<engine::Transform> {
    using fields = std::tuple<bitrep::quantized<-512.f, 512.f, 0.01f>, bitrep::bounded_string<8>>;
};
int main() { return static_cast<int>(bitrep::bit_size(engine::Transform{})); }
