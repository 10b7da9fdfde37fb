// Round-trips a struct through the installed headers; exits non-zero on any
// mismatch, so the package is proven usable, not merely found.
#include <bitrep/bitrep.hpp>

#include <cstdio>

struct Ping {
    bitrep::ranged<int, 0, 100> health;
    bool alive;
};

int main()
{
    const Ping sent{42, true};
    const auto bytes = bitrep::to_bytes(sent);
    Ping received{};
    const bitrep::status st = bitrep::from_bytes(bytes, received);
    const bool same = st && received.health == 42 && received.alive && bytes.size() == 1;
    std::printf("consumer: the installed bitrep %s (%zu byte, %s)\n", same ? "works" : "FAILED", bytes.size(),
                st.message().c_str());
    return same ? 0 : 1;
}
