// expect: std::string has no bound
// expect: positional_field<Chat, 0>
#include <bitrep/bitrep.hpp>
#include <string>
struct Chat { std::string text; };
int main() { return static_cast<int>(bitrep::to_bytes(Chat{}).size()); }
