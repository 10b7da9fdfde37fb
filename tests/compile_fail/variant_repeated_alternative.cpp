// expect: a std::variant's alternatives must be distinct types
// expect: distinct_alternative<std::variant<
#include <bitrep/bitrep.hpp>
#include <variant>
struct Held { std::variant<bitrep::ranged<int, 0, 9>, bitrep::ranged<int, 0, 9>> item; };
int main() { return static_cast<int>(bitrep::to_bytes(Held{}).size()); }
