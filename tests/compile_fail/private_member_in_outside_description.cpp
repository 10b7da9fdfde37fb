// expect: (private within this context|is a private member of 'Account')
// assertions: 0
// errors: 2
#include <bitrep/bitrep.hpp>
// A description outside the class cannot name its private members: the
// compiler's access error (docs/guide/annotate.md says what to do instead:
// BOOST_DESCRIBE_CLASS inside the class).
class Account {
public:
    int gold() const { return gold_; }
private:
    bitrep::ranged<int, 0, 999> gold_;
};
BOOST_DESCRIBE_STRUCT(Account, (), (gold_))
int main() { return static_cast<int>(bitrep::to_bytes(Account{}).size()); }
