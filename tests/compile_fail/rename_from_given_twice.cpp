// expect: a .from given twice
#include <bitrep/bitrep.hpp>
struct Purse {
    // Which field the file's "gold" loads into would be a guess.
    static constexpr bitrep::renamed bitrep_renames[] = {{.from = "gold", .to = "coins"}, {.from = "gold", .to = "gems"}};
    bitrep::ranged<int, 0, 9999> coins = 0;
    bitrep::ranged<int, 0, 99> gems = 0;
};
BOOST_DESCRIBE_STRUCT(Purse, (), (coins, gems))
int main() { return static_cast<int>(bitrep::save_to_bytes(Purse{}).size()); }
