"""`openhands-goal-worker`: a stateless process that runs goal workflows and their activity.

    openhands-goal-worker --temporal 127.0.0.1:7233 --task-queue openhands-goals \
        --server http://10.0.0.5:8000 --server http://10.0.0.6:8000

Run as many as you like, on any machine that reaches Temporal and the agent servers. The only
key a worker needs is the agent servers' session key (`OH_AGENT_SERVER_KEY`): the agent and
the judge run on the server that holds the conversation. A worker calls only the agent
servers it is given (`--server`, or `OH_AGENT_SERVERS` comma separated): a workflow naming
another URL is refused, so the key is never sent anywhere else.
"""

from __future__ import annotations

import argparse
import asyncio
import os
from concurrent.futures import ThreadPoolExecutor

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from openhands.agent_server.temporal.activities import (
    SERVERS_ENV,
    AgentServers,
    StepActivities,
)
from openhands.agent_server.temporal.models import TASK_QUEUE
from openhands.agent_server.temporal.workflow import GoalWorkflow
from openhands.sdk.errors import InvalidSettingError
from temporalio.client import Client
from temporalio.contrib.pydantic import pydantic_data_converter
from temporalio.worker import UnsandboxedWorkflowRunner, Worker

DEFAULT_SLOTS = 64
"""Step calls a worker makes at once by default (each holds a thread for a few seconds at most;
a goal whose step goes on longer waits for the server's signal and holds nothing)."""


async def serve(
    address: str, namespace: str, task_queue: str, slots: int, servers: AgentServers
) -> None:
    """Run the worker until cancelled, calling only `servers`."""
    client = await Client.connect(
        address, namespace=namespace, data_converter=pydantic_data_converter
    )
    with ThreadPoolExecutor(max_workers=slots) as pool:
        worker = Worker(
            client,
            task_queue=task_queue,
            workflows=[GoalWorkflow],
            activities=[StepActivities(servers).perform_step],
            activity_executor=pool,
            max_concurrent_local_activities=slots,
            max_concurrent_activities=slots,
            max_concurrent_workflow_tasks=slots,
            # The SDK's models are imported as they are; determinism comes from the
            # controller reading time only through the workflow's clock.
            workflow_runner=UnsandboxedWorkflowRunner(),
        )
        await worker.run()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="openhands-goal-worker", description=__doc__)
    parser.add_argument(
        "--temporal", default=os.environ.get("OH_TEMPORAL_ADDRESS", "127.0.0.1:7233")
    )
    parser.add_argument("--namespace", default=os.environ.get("OH_TEMPORAL_NAMESPACE", "default"))
    parser.add_argument(
        "--task-queue", default=os.environ.get("OH_TEMPORAL_TASK_QUEUE", TASK_QUEUE)
    )
    parser.add_argument(
        "--slots",
        "--threads",
        type=int,
        default=DEFAULT_SLOTS,
        help="step calls made at once (each holds a thread for a few seconds at most)",
    )
    parser.add_argument(
        "--server",
        action="append",
        dest="servers",
        metavar="URL",
        help=f"an agent server this worker may call (repeat for several; default: "
        f"{SERVERS_ENV}, comma separated); steps for any other are refused",
    )
    args = parser.parse_args(argv)
    if args.slots < 1:
        parser.error("--slots must be >= 1")
    urls = args.servers or [u for u in os.environ.get(SERVERS_ENV, "").split(",") if u.strip()]
    try:
        servers = AgentServers(urls, os.environ.get("OH_AGENT_SERVER_KEY"))
    except InvalidSettingError as exc:
        parser.error(str(exc))
    asyncio.run(serve(args.temporal, args.namespace, args.task_queue, args.slots, servers))


if __name__ == "__main__":
    main()
