// UDP on the loopback interface, as the arena's server and clients use it:
// non-blocking Boost.Asio sockets driven by one thread, once per tick.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <span>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/udp.hpp>

namespace arena {

namespace asio = boost::asio;
using udp = asio::ip::udp;

/// What a client sends until its first state arrives, so that the server
/// learns its endpoint. Its acks (11 bytes) can never be mistaken for it.
inline constexpr std::array<std::uint8_t, 5> hello{'h', 'e', 'l', 'l', 'o'};

inline bool is_hello(std::span<const std::uint8_t> bytes)
{
    return std::equal(bytes.begin(), bytes.end(), hello.begin(), hello.end());
}

/// A socket on 127.0.0.1 at a port the system picks.
inline udp::socket open_loopback_socket(asio::io_context& io)
{
    udp::socket socket(io, udp::endpoint(asio::ip::address_v4::loopback(), 0));
    socket.non_blocking(true);
    return socket;
}

/// Calls receive(from, bytes) for every datagram waiting on the socket.
template <class Receive>
void for_each_datagram(udp::socket& socket, Receive&& receive)
{
    // Larger than any datagram the arena sends (packets are at most
    // replication_options::max_packet_bytes), so none is truncated.
    std::array<std::uint8_t, 2048> buffer;
    udp::endpoint from;
    for (;;) {
        boost::system::error_code error;
        const std::size_t size = socket.receive_from(asio::buffer(buffer), from, 0, error);
        if (error == asio::error::would_block)
            return;
        if (error)
            throw boost::system::system_error(error, "receive_from");
        receive(from, std::span<const std::uint8_t>(buffer.data(), size));
    }
}

/// Sends one datagram; false when the socket's send buffer is full (the
/// datagram is lost, as it might be on any network).
inline bool send_datagram(udp::socket& socket, const udp::endpoint& to, std::span<const std::uint8_t> bytes)
{
    boost::system::error_code error;
    socket.send_to(asio::buffer(bytes.data(), bytes.size()), to, 0, error);
    if (error == asio::error::would_block)
        return false;
    if (error)
        throw boost::system::system_error(error, "send_to");
    return true;
}

} // namespace arena
