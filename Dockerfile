# The agent server image: `docker build -t openhands-agent-server .`
# Run:  docker run -p 8000:8000 -v oh-data:/data -e OH_SESSION_API_KEYS=<secret> openhands-agent-server
# (see docs/agent-server.md). Installs exactly what uv.lock pins: `uv sync --frozen`.

ARG PYTHON_IMAGE=python:3.11-slim-bookworm

# -- build: resolve nothing, install the locked workspace into /app/.venv ---------------------
FROM ${PYTHON_IMAGE} AS build
COPY --from=ghcr.io/astral-sh/uv:0.13.9 /uv /usr/local/bin/uv
ENV UV_PYTHON_DOWNLOADS=never \
    UV_PYTHON=/usr/local/bin/python3 \
    UV_COMPILE_BYTECODE=1 \
    UV_LINK_MODE=copy
WORKDIR /app

# Third-party dependencies first (a layer that survives source edits).
COPY pyproject.toml uv.lock ./
COPY openhands-sdk/pyproject.toml openhands-sdk/pyproject.toml
COPY openhands-tools/pyproject.toml openhands-tools/pyproject.toml
COPY openhands-agent-server/pyproject.toml openhands-agent-server/pyproject.toml
RUN uv sync --frozen --no-dev --no-install-workspace

# Then the workspace packages themselves, installed (not linked) so /app/.venv stands alone.
COPY openhands-sdk openhands-sdk
COPY openhands-tools openhands-tools
COPY openhands-agent-server openhands-agent-server
RUN uv sync --frozen --no-dev --no-editable

# -- runtime: the venv, a non-root user, conversations on a volume ----------------------------
FROM ${PYTHON_IMAGE}
RUN groupadd --gid 1000 openhands \
    && useradd --uid 1000 --gid openhands --create-home --shell /bin/bash openhands \
    && mkdir -p /data/conversations /data/workspace \
    && chown -R openhands:openhands /data
COPY --from=build /app/.venv /app/.venv
ENV PATH=/app/.venv/bin:$PATH \
    PYTHONUNBUFFERED=1 \
    LITELLM_LOCAL_MODEL_COST_MAP=True \
    OH_CONVERSATIONS_PATH=/data/conversations \
    OH_WORKSPACE_PATH=/data/workspace
USER openhands
WORKDIR /data/workspace
VOLUME ["/data"]
EXPOSE 8000
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
    CMD ["python", "-c", "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8000/health', timeout=4)"]
# 0.0.0.0 inside the container; without OH_SESSION_API_KEYS the server logs a loud warning.
CMD ["openhands-agent-server", "--host", "0.0.0.0", "--port", "8000"]
