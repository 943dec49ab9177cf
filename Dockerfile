# The agent server image: `make image` (or `docker build -t openhands-agent-server .`).
# Run it as docs/agent-server.md#docker says (the --security-opt options give the agent's
# sandbox what it needs). The server's packages are exactly what uv.lock pins: `uv sync --frozen`.
#
# Build arguments:
#   PYTHON_IMAGE         the base image: Debian bookworm with python3 >= 3.11 (default: the
#                        official python:3.11-slim-bookworm). Without Docker Hub, `make image`
#                        builds a stand-in from Debian's archive (docker/offline-images).
#   UV_IMAGE             an image holding the uv binary at /uv (default: astral's, on ghcr.io;
#                        docker/offline-images makes one from PyPI's uv wheel). UV_VERSION picks
#                        the default's version.
#   EXTRA_CA_CERT        a CA certificate to trust besides Debian's (PEM text, not a file name:
#                        --build-arg EXTRA_CA_CERT="$(cat corp-ca.pem)"), for a TLS-inspecting
#                        proxy; without it the build's `uv sync` fails with "invalid peer
#                        certificate: UnknownIssuer". The server and the agent trust it too.
#   PROJECT_TOOLS        Python packages for the agent's own Python in /opt/project (the `python`,
#                        `pip` and `pytest` the agent's terminal and `verify` find first on PATH),
#                        e.g. "pytest pytest-cov ruff"; "" installs none. Default: pytest.
#                        For a requirements file, build FROM this image and `RUN pip install -r`.
#   EXTRA_APT_PACKAGES   Debian packages besides git, curl, procps and ca-certificates, e.g.
#                        "build-essential" for a C toolchain, "nodejs npm". Default: none.
# tests/test_dockerfile.py runs the RUN steps that install Python packages in a fresh folder;
# `make image-test` (tests/image) builds the image and runs it.

ARG PYTHON_IMAGE=python:3.11-slim-bookworm
ARG UV_VERSION=0.13.9
ARG UV_IMAGE=ghcr.io/astral-sh/uv:${UV_VERSION}

FROM ${UV_IMAGE} AS uv

# -- build: resolve nothing, install the locked workspace into /app/.venv ---------------------
FROM ${PYTHON_IMAGE} AS build
# First, so that the layers below stay cached while the certificate does not change.
ARG EXTRA_CA_CERT=""
# One file per certificate (update-ca-certificates links each file as one certificate).
RUN if [ -n "$EXTRA_CA_CERT" ]; then \
        printf '%s\n' "$EXTRA_CA_CERT" | grep -q -- '-----BEGIN CERTIFICATE-----' || { \
            echo 'EXTRA_CA_CERT must hold the certificate itself (PEM), not a file name:' \
                '--build-arg EXTRA_CA_CERT="$(cat ca.pem)"' >&2; exit 1; }; \
        printf '%s\n' "$EXTRA_CA_CERT" | awk '/-----BEGIN CERTIFICATE-----/ { n++ } \
            n { print > ("/usr/local/share/ca-certificates/openhands-extra-" n ".crt") }' \
        && update-ca-certificates; \
    fi
COPY --from=uv /uv /usr/local/bin/uv
# uv trusts only its own roots unless told: SSL_CERT_FILE makes it use the system's (with
# EXTRA_CA_CERT in it).
ENV UV_PYTHON_DOWNLOADS=never \
    UV_PYTHON=/usr/local/bin/python3 \
    UV_COMPILE_BYTECODE=1 \
    UV_LINK_MODE=copy \
    SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt
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

# The agent's Python: a venv of its own, first on the agent's PATH, so `python -m pytest` in
# the agent's terminal or in `verify` finds the project's test tools, and what the agent (or a
# project) installs there can never change the server's packages in /app/.venv.
ARG PROJECT_TOOLS="pytest"
ENV PROJECT_VENV=/opt/project
RUN uv venv --seed "$PROJECT_VENV" \
    && if [ -n "$PROJECT_TOOLS" ]; then \
        uv pip install --python "$PROJECT_VENV/bin/python" $PROJECT_TOOLS; \
    fi

# -- runtime: the venvs, tools to work on a repository, a non-root user, data on a volume ------
FROM ${PYTHON_IMAGE}
ARG EXTRA_CA_CERT=""
# One file per certificate (update-ca-certificates links each file as one certificate).
RUN if [ -n "$EXTRA_CA_CERT" ]; then \
        printf '%s\n' "$EXTRA_CA_CERT" | grep -q -- '-----BEGIN CERTIFICATE-----' || { \
            echo 'EXTRA_CA_CERT must hold the certificate itself (PEM), not a file name:' \
                '--build-arg EXTRA_CA_CERT="$(cat ca.pem)"' >&2; exit 1; }; \
        printf '%s\n' "$EXTRA_CA_CERT" | awk '/-----BEGIN CERTIFICATE-----/ { n++ } \
            n { print > ("/usr/local/share/ca-certificates/openhands-extra-" n ".crt") }' \
        && update-ca-certificates; \
    fi
ARG EXTRA_APT_PACKAGES=""
# git, curl and ps for the agent's terminal; bubblewrap and slirp4netns for its sandbox
# (OH_SANDBOX); tini as process 1 (it reaps orphaned processes and passes `docker stop`'s
# SIGTERM on to the server). Only what the base lacks is installed (a base that has them all, such as
# docker/offline-images's, needs no package lists). safe.directory: a mounted repository is
# usually owned by another uid than the server's user, and git refuses to work in it otherwise.
RUN missing=""; \
    for package in git curl procps ca-certificates bubblewrap slirp4netns tini $EXTRA_APT_PACKAGES; do \
        dpkg-query -W -f '${Status}' "$package" 2>/dev/null | grep -q 'ok installed' \
            || missing="$missing $package"; \
    done; \
    if [ -n "$missing" ]; then \
        apt-get update \
        && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $missing \
        && rm -rf /var/lib/apt/lists/*; \
    fi \
    && git config --system --add safe.directory '*'
# The conversations folder is private (0700) from the start: a fresh volume copies it from
# here, and the server would otherwise tighten it (with a warning) at every first start.
RUN groupadd --gid 1000 openhands \
    && useradd --uid 1000 --gid openhands --create-home --shell /bin/bash openhands \
    && install -d -m 0755 -o openhands -g openhands /data /data/workspace \
    && install -d -m 0700 -o openhands -g openhands /data/conversations
COPY --from=build /app/.venv /app/.venv
# Owned by the agent's user: `pip install` in the agent's terminal works without root.
COPY --from=build --chown=openhands:openhands /opt/project /opt/project
# Two PATHs. The server's own (PATH) never holds /opt/project/bin: the agent can write there,
# and the server runs what it finds on its PATH (git for checkpoints, bwrap, slirp4netns)
# outside the sandbox. The agent's processes get OH_AGENT_PATH instead, its venv first.
ENV PATH=/app/.venv/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    OH_AGENT_PATH=/opt/project/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    PROJECT_VENV=/opt/project \
    PYTHONUNBUFFERED=1 \
    LITELLM_LOCAL_MODEL_COST_MAP=True \
    SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt \
    OH_CONVERSATIONS_PATH=/data/conversations \
    OH_WORKSPACE_PATH=/data/workspace \
    OH_SANDBOX_WRITABLE=/opt/project
USER openhands
WORKDIR /data/workspace
VOLUME ["/data"]
EXPOSE 8000
# The server's own Python by its absolute path (never one the agent can replace).
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
    CMD ["/app/.venv/bin/python", "-c", "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8000/health', timeout=4)"]
# 0.0.0.0 inside the container; without OH_SESSION_API_KEYS the server logs a loud warning.
# The agent's sandbox (bubblewrap) needs the --security-opt options of docs/agent-server.md;
# without them OH_SANDBOX=auto runs the agent unsandboxed and says so at start and in
# /server_info.
# `-e 143`: the server ends a `docker stop` (SIGTERM) gracefully, then re-raises the signal;
# that is a clean stop, exit code 0 (a kill after the grace period stays 137).
ENTRYPOINT ["/usr/bin/tini", "-e", "143", "--"]
CMD ["/app/.venv/bin/openhands-agent-server", "--host", "0.0.0.0", "--port", "8000"]
