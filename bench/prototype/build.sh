set -e
L="/usr/lib/x86_64-linux-gnu/libbenchmark.so.1.7.1 /usr/lib/x86_64-linux-gnu/libzstd.so.1.5.4 /usr/lib/x86_64-linux-gnu/libsodium.so -lpthread"
g++ -O3 -DNDEBUG -Wall -Wextra -std=c++20 -I../../include -I.. -c monster_proto.cpp -o mp_g++.o &
clang++ -O3 -DNDEBUG -Wall -Wextra -std=c++20 -I../../include -I.. -c monster_proto.cpp -o mp_clang++.o
wait
g++ -O3 mp_g++.o -o mp_gcc ${GCC_BUILD:?}/libbitrep.a $L
clang++ -O3 mp_clang++.o -o mp_clang ${CLANG_BUILD:?}/libbitrep.a $L
