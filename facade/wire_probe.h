// What moving bytes through this host's network stack costs its CPU (`strata plan`'s
// calibration): MPI over TCP copies every byte through the kernel on both sides.
#pragma once

namespace strata {

// Seconds per byte on each side of a TCP connection over loopback, one thread writing and
// one reading 64 MiB at once; 0 if the probe cannot run (no loopback, no sockets).
double measure_wire_byte_seconds();

}  // namespace strata
