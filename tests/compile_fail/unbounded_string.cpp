// expect: std::string has no bound
#include <bitrep/bitrep.hpp>
#include <string>
struct Chat { std::string text; };
int main() { return static_cast<int>(bitrep::to_bytes(Chat{}).size()); }
