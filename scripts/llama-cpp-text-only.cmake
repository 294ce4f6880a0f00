# Included by CMake right after llama.cpp's own project() call when setup.sh builds
# llama-cpp-python (CMAKE_PROJECT_llama.cpp_INCLUDE). llama-cpp-python forces llama.cpp's
# "common" utilities library on, but its Python bindings load only libllama and libggml:
# common (argument parsing, chat parsers, model download) and the HTTP client it pulls in
# were more than half of the compile (4 min 40 s -> 2 min 16 s on 2 cores without them).
set(LLAMA_BUILD_COMMON OFF CACHE BOOL "llama.cpp: build common utils library" FORCE)
