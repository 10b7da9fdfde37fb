// expect: an enum needs at least one described enumerator
// expect: has_enumerators<Mood>
#include <bitrep/bitrep.hpp>
enum class Mood {};
BOOST_DESCRIBE_ENUM(Mood)
struct Npc { Mood mood; };
int main() { return static_cast<int>(bitrep::to_bytes(Npc{}).size()); }
