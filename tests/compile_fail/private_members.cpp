// expect: cannot serialize this class
// expect: put BOOST_DESCRIBE_CLASS\(Type
// expect: a member it does not list is left out of every save and packet
// expect: bitrep serializes: bool, integers
// expect: positional_field<Bank, 0>
#include <bitrep/bitrep.hpp>
// A class with private members and no description, as a field of an aggregate.
class Account {
public:
    int gold() const { return gold_; }
private:
    bitrep::ranged<int, 0, 999> gold_;
};
struct Bank { Account account; };
int main() { return static_cast<int>(bitrep::to_bytes(Bank{}).size()); }
