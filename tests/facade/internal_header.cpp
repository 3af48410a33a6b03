// Must NOT compile: linking strata::strata gives the public headers and nothing behind
// them (the test facade_hides_internals expects this build to fail).
#include "strata/shards/shard.h"

int main() {
  return 0;
}
