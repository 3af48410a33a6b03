#include "wire_probe.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <thread>
#include <vector>

namespace strata {
namespace {

constexpr std::size_t kBytes = 64 << 20, kBlock = 1 << 20;

// A socket closed on scope exit.
struct Socket {
  int fd = -1;
  explicit Socket(int f) : fd(f) {}
  Socket(const Socket&) = delete;
  Socket& operator=(const Socket&) = delete;
  ~Socket() {
    if (fd >= 0) close(fd);
  }
};

bool send_all(int fd, const std::vector<char>& block) {
  for (std::size_t sent = 0; sent < kBytes;) {
    const ssize_t n = send(fd, block.data(), std::min(kBlock, kBytes - sent), 0);
    if (n <= 0) return false;
    sent += static_cast<std::size_t>(n);
  }
  return true;
}

void receive_all(int fd) {
  std::vector<char> block(kBlock);
  for (std::size_t got = 0; got < kBytes;) {
    const ssize_t n = recv(fd, block.data(), block.size(), 0);
    if (n <= 0) return;
    got += static_cast<std::size_t>(n);
  }
}

}  // namespace

double measure_wire_byte_seconds() {
  Socket listener(socket(AF_INET, SOCK_STREAM, 0));
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof address;
  auto* any = reinterpret_cast<sockaddr*>(&address);
  if (listener.fd < 0 || bind(listener.fd, any, length) != 0 || listen(listener.fd, 1) != 0 ||
      getsockname(listener.fd, any, &length) != 0)
    return 0;
  Socket writer(socket(AF_INET, SOCK_STREAM, 0));
  if (writer.fd < 0 || connect(writer.fd, any, length) != 0) return 0;
  Socket reader(accept(listener.fd, nullptr, nullptr));
  if (reader.fd < 0) return 0;
  const std::vector<char> block(kBlock, 1);
  const auto start = std::chrono::steady_clock::now();
  std::thread drain(receive_all, reader.fd);
  const bool sent = send_all(writer.fd, block);
  shutdown(writer.fd, SHUT_WR);
  drain.join();
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return sent ? seconds / static_cast<double>(kBytes) : 0;
}

}  // namespace strata
