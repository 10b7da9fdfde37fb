// expect: each .to must name a field of this described type
#include <bitrep/bitrep.hpp>
struct Purse {
    static constexpr bitrep::renamed bitrep_renames[] = {{.from = "gold", .to = "coin"}}; // a typo: coins
    bitrep::ranged<int, 0, 9999> coins = 0;
};
BOOST_DESCRIBE_STRUCT(Purse, (), (coins))
int main() { return static_cast<int>(bitrep::save_to_bytes(Purse{}).size()); }
