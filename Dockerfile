# One image for the API (`serve`) and the workers (`worker`) of a multi-machine deployment
# (compose.yaml). The embedded model ships inside the installed packages: nothing is
# downloaded when a container starts.
FROM python:3.11-slim-bookworm

RUN apt-get update \
    && apt-get install -y --no-install-recommends build-essential cmake \
    && rm -rf /var/lib/apt/lists/*

WORKDIR /app
COPY pyproject.toml README.md ./
COPY src ./src
COPY scripts/llama-cpp-text-only.cmake ./scripts/
# a portable llama.cpp build (one image for every machine), text model only, without the
# utilities library the Python bindings do not load (scripts/llama-cpp-text-only.cmake)
ENV CMAKE_ARGS="-DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_BMI2=ON -DLLAVA_BUILD=OFF -DCMAKE_PROJECT_llama.cpp_INCLUDE=/app/scripts/llama-cpp-text-only.cmake"
RUN pip install --no-cache-dir ".[workers]"

ENV RESEARCH_STUDIO_HOME=/data
VOLUME /data
EXPOSE 8000
CMD ["research-studio", "serve", "--host", "0.0.0.0", "--port", "8000"]
