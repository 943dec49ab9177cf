"""WarmStart: one init, all or nothing, recorded sealed for a restart."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from openhands.agent_server.config import ServerConfig
from openhands.agent_server.errors import BadRequestError, InvalidRequestError
from openhands.agent_server.services.sealing import SecretBox
from openhands.agent_server.services.warm_start import InitRequest, WarmStart
from pydantic import ValidationError

BOOTSTRAP = "bootstrap-key-for-the-pool-" + "b" * 32
USER_KEY = "per-user-sealing-key-" + "u" * 32
VARIABLE = "OH_WARM_START_TEST_VALUE"


class Services:
    """What app.py would start: records the configurations it was given."""

    def __init__(self, *, fail: bool = False) -> None:
        self.started: list[ServerConfig] = []
        self.fail = fail

    async def __call__(self, config: ServerConfig) -> None:
        if self.fail:
            raise RuntimeError("the disk of the new workspace is not mounted")
        self.started.append(config)


def _dormant(root: Path) -> ServerConfig:
    return ServerConfig.from_env(
        {
            "OH_CONVERSATIONS_PATH": str(root / "pool" / "conversations"),
            "OH_DEFERRED_INIT": "true",
            "OH_SECRET_KEY": BOOTSTRAP,
            "OH_CONTROL_THREADS": "3",
        }
    )


def _warm(root: Path, services: Services) -> WarmStart:
    return WarmStart(_dormant(root), SecretBox([BOOTSTRAP]), services)


@pytest.fixture(autouse=True)
def _clean_env() -> Iterator[None]:
    """An init sets process environment variables: put the environment back after each test."""
    saved = dict(os.environ)
    os.environ.pop(VARIABLE, None)
    yield
    os.environ.clear()
    os.environ.update(saved)


def _request(root: Path, **extra: object) -> InitRequest:
    return InitRequest.model_validate(
        {
            "session_api_keys": ["user-session-key"],
            "secret_key": USER_KEY,
            "conversations_path": str(root / "user" / "conversations"),
            "env": {VARIABLE: "from-init", "LLM_API_KEY": "sk-user"},
            **extra,
        }
    )


async def test_init_starts_the_services_with_the_delivered_configuration(tmp_path: Path) -> None:
    services = Services()
    warm = _warm(tmp_path, services)

    status = await warm.initialize(_request(tmp_path))

    assert status.state == "ready" and warm.ready
    [config] = services.started
    assert config.session_api_keys == ("user-session-key",)
    assert config.secret_key is not None and config.secret_key.get_secret_value() == USER_KEY
    assert config.conversations_path == tmp_path / "user" / "conversations"
    assert config.llm_api_key is not None and config.llm_api_key.get_secret_value() == "sk-user"
    assert config.deferred_init is False
    assert config.control_threads == 3  # what the dormant server was started with stays
    assert os.environ[VARIABLE] == "from-init"


async def test_the_record_is_sealed_and_a_restart_comes_back_ready(tmp_path: Path) -> None:
    await _warm(tmp_path, Services()).initialize(_request(tmp_path))
    record = _dormant(tmp_path).init_record_file
    assert record.exists()
    assert "user-session-key" not in record.read_text() and USER_KEY not in record.read_text()

    services = Services()
    restarted = _warm(tmp_path, services)
    assert await restarted.restore() is True

    assert restarted.ready and services.started[0].session_api_keys == ("user-session-key",)


async def test_a_second_init_is_refused(tmp_path: Path) -> None:
    warm = _warm(tmp_path, Services())
    await warm.initialize(_request(tmp_path))

    with pytest.raises(BadRequestError, match="accepts one init"):
        await warm.initialize(_request(tmp_path))


async def test_a_failed_start_leaves_the_server_dormant_with_nothing_kept(tmp_path: Path) -> None:
    warm = _warm(tmp_path, Services(fail=True))

    with pytest.raises(RuntimeError):
        await warm.initialize(_request(tmp_path))

    assert warm.state == "dormant" and "not mounted" in (warm.status().error or "")
    assert VARIABLE not in os.environ
    assert not _dormant(tmp_path).init_record_file.exists()
    assert await _warm(tmp_path, Services()).restore() is False
    # and it can be initialized after all
    assert (await _warm(tmp_path, Services()).initialize(_request(tmp_path))).state == "ready"


async def test_a_setting_no_server_accepts_is_422_naming_it_and_nothing_starts(
    tmp_path: Path,
) -> None:
    services = Services()
    warm = _warm(tmp_path, services)

    with pytest.raises(InvalidRequestError, match="OH_MAX_RUN_THREADS"):
        await warm.initialize(_request(tmp_path, env={"OH_MAX_RUN_THREADS": "many"}))

    assert warm.state == "dormant" and services.started == []


def test_bad_fields_are_refused_naming_them() -> None:
    with pytest.raises(ValidationError, match="env"):
        InitRequest.model_validate({"env": {"NOT-A-NAME": "x"}})
    with pytest.raises(ValidationError, match="session_api_keys"):
        InitRequest.model_validate({"session_api_keys": [" "]})


def test_only_the_bootstrap_key_authorizes_an_init(tmp_path: Path) -> None:
    warm = _warm(tmp_path, Services())

    assert warm.authorized(BOOTSTRAP)
    assert not warm.authorized(None) and not warm.authorized(BOOTSTRAP + "x")
