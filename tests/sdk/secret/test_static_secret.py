"""StaticSecret: a value given up front, never shown by a dump unless asked for."""

from __future__ import annotations

from openhands.sdk.secret import StaticSecret
from pydantic import SecretStr


def test_a_dump_hides_the_value_unless_expose_secrets_is_asked_for() -> None:
    secret = StaticSecret(value=SecretStr("s3cret"), description="deploy")

    assert secret.model_dump(mode="json")["value"] is None
    assert secret.model_dump()["value"] == SecretStr("s3cret")  # still a SecretStr
    assert "s3cret" not in secret.model_dump_json()
    exposed = {"expose_secrets": True}
    assert secret.model_dump(mode="json", context=exposed)["value"] == "s3cret"
    assert secret.model_dump(context=exposed)["value"] == "s3cret"
