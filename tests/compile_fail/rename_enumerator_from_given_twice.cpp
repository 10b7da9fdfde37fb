// expect: a .from given twice
#include <bitrep/bitrep.hpp>
#include <array>
enum class Gem { ruby, sapphire, emerald };
BOOST_DESCRIBE_ENUM(Gem, ruby, sapphire, emerald)
// Which enumerator the file's "azure" means would be a guess.
constexpr auto bitrep_renames(Gem)
{
    return std::array{bitrep::renamed{.from = "azure", .to = "sapphire"}, bitrep::renamed{.from = "azure", .to = "emerald"}};
}
struct Purse { Gem gem = Gem::ruby; };
BOOST_DESCRIBE_STRUCT(Purse, (), (gem))
int main() { return static_cast<int>(bitrep::save_to_bytes(Purse{}).size()); }
