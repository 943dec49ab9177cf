# The agent server image: `docker build -t openhands-agent-server .`
# Run:  docker run -p 8000:8000 -v oh-data:/data -e OH_SESSION_API_KEYS=<secret> openhands-agent-server
# (see docs/agent-server.md). The server's packages are exactly what uv.lock pins: `uv sync --frozen`.
#
# Build arguments:
#   PROJECT_TOOLS        Python packages for the agent's own Python in /opt/project (the `python`,
#                        `pip` and `pytest` the agent's terminal and `verify` find first on PATH),
#                        e.g. "pytest pytest-cov ruff"; "" installs none. Default: pytest.
#                        For a requirements file, build FROM this image and `RUN pip install -r`.
#   EXTRA_APT_PACKAGES   Debian packages besides git, curl, procps and ca-certificates, e.g.
#                        "build-essential" for a C toolchain, "nodejs npm". Default: none.
# tests/test_dockerfile.py runs the RUN steps that install Python packages in a fresh folder.

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

# The agent's Python: a venv of its own, first on PATH, so `python -m pytest` in the agent's
# terminal or in `verify` finds the project's test tools, and what the agent (or a project)
# installs there can never change the server's packages in /app/.venv.
ARG PROJECT_TOOLS="pytest"
ENV PROJECT_VENV=/opt/project
RUN uv venv --seed "$PROJECT_VENV" \
    && if [ -n "$PROJECT_TOOLS" ]; then \
        uv pip install --python "$PROJECT_VENV/bin/python" $PROJECT_TOOLS; \
    fi

# -- runtime: the venvs, tools to work on a repository, a non-root user, data on a volume ------
FROM ${PYTHON_IMAGE}
ARG EXTRA_APT_PACKAGES=""
# git, curl and ps for the agent's terminal; bubblewrap and slirp4netns for its sandbox
# (OH_SANDBOX); safe.directory: a mounted repository is usually owned by another uid than the
# server's user, and git refuses to work in it otherwise.
RUN apt-get update \
    && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
        git curl procps ca-certificates bubblewrap slirp4netns $EXTRA_APT_PACKAGES \
    && rm -rf /var/lib/apt/lists/* \
    && git config --system --add safe.directory '*'
RUN groupadd --gid 1000 openhands \
    && useradd --uid 1000 --gid openhands --create-home --shell /bin/bash openhands \
    && mkdir -p /data/conversations /data/workspace \
    && chown -R openhands:openhands /data
COPY --from=build /app/.venv /app/.venv
# Owned by the agent's user: `pip install` in the agent's terminal works without root.
COPY --from=build --chown=openhands:openhands /opt/project /opt/project
ENV PATH=/opt/project/bin:/app/.venv/bin:$PATH \
    PROJECT_VENV=/opt/project \
    PYTHONUNBUFFERED=1 \
    LITELLM_LOCAL_MODEL_COST_MAP=True \
    OH_CONVERSATIONS_PATH=/data/conversations \
    OH_WORKSPACE_PATH=/data/workspace \
    OH_SANDBOX_WRITABLE=/opt/project
USER openhands
WORKDIR /data/workspace
VOLUME ["/data"]
EXPOSE 8000
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
    CMD ["python", "-c", "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8000/health', timeout=4)"]
# 0.0.0.0 inside the container; without OH_SESSION_API_KEYS the server logs a loud warning.
# The sandbox needs user namespaces, which Docker's default seccomp profile refuses: run with
# `--security-opt seccomp=unconfined` (or a profile allowing clone/unshare of namespaces) to
# have it; otherwise OH_SANDBOX=auto runs the agent unsandboxed and says so at start.
CMD ["openhands-agent-server", "--host", "0.0.0.0", "--port", "8000"]
