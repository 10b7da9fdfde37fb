// expect: no .from an enumerator it still has
#include <bitrep/bitrep.hpp>
#include <array>
enum class Gem { ruby, jade };
BOOST_DESCRIBE_ENUM(Gem, ruby, jade)
constexpr auto bitrep_renames(Gem) { return std::array{bitrep::renamed{.from = "ruby", .to = "jade"}}; }
struct Purse { Gem gem = Gem::ruby; };
BOOST_DESCRIBE_STRUCT(Purse, (), (gem))
int main() { return static_cast<int>(bitrep::save_to_bytes(Purse{}).size()); }
