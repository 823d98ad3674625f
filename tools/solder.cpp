// The `solder` command line (placeholder until the CLI lands).
#include <cstdio>
int main() { std::puts("solder"); return 0; }
