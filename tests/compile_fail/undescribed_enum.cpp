// expect: Add BOOST_DESCRIBE_ENUM
// expect: positional_field<Paint, 0>
#include <bitrep/bitrep.hpp>
enum class Color { red, green };
struct Paint { Color color; };
int main() { return static_cast<int>(bitrep::to_bytes(Paint{}).size()); }
