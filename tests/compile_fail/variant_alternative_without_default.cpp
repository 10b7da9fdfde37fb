// expect: a std::variant's alternatives must be default-constructible
// expect: default_constructible_alternative<std::variant<Shield, Sword ?>, Sword ?>
#include <bitrep/bitrep.hpp>
#include <variant>
struct Sword { explicit Sword(int d) : damage(d) {} bitrep::ranged<int, 0, 100> damage; };
BOOST_DESCRIBE_STRUCT(Sword, (), (damage))
struct Shield { bitrep::ranged<int, 0, 100> armor; };
struct Hand { std::variant<Shield, Sword> held; };
int main() { return static_cast<int>(bitrep::to_bytes(Hand{}).size()); }
