// expect: a flag enum needs at least one enumerator of one bit
// expect: has_flags<Access>
#include <bitrep/bitrep.hpp>
enum class Access { none = 0, all = 3 };
BOOST_DESCRIBE_ENUM(Access, none, all)
constexpr bool bitrep_flags(Access) { return true; }
struct Door { Access access; };
int main() { return static_cast<int>(bitrep::to_bytes(Door{}).size()); }
