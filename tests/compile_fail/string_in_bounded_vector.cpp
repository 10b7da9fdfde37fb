// expect: std::string has no bound
// expect: bounded_string<MaxLength>
#include <bitrep/bitrep.hpp>
#include <string>
struct Chat { bitrep::bounded_vector<std::string, 4> lines; };
BOOST_DESCRIBE_STRUCT(Chat, (), (lines))
int main() { return static_cast<int>(bitrep::to_bytes(Chat{}).size()); }
