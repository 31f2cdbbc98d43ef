# Included by llama.cpp's own CMakeLists right after its project() call (Makefile:
# -DCMAKE_PROJECT_llama.cpp_INCLUDE=<this file>). llama-cpp-python forces
# LLAMA_BUILD_COMMON=ON in the cache, but its Python bindings and server load only
# libllama and libggml*: llama.cpp's `common` library (chat templates, argument parsing,
# JSON schema; 46 of the 127 compile steps, about 4 of the 11 CPU-minutes) is never loaded.
# A directory variable shadows the cached option (policy CMP0077), so `common` is neither
# configured nor built nor installed.
set(LLAMA_BUILD_COMMON OFF)
