"""`openhands-goal-worker`: a stateless process that runs goal workflows and their activities.

    openhands-goal-worker --temporal 127.0.0.1:7233 --task-queue openhands-goals

Run as many as you like, on any machine that reaches Temporal and the agent servers. Keys
come from the environment (`OH_AGENT_SERVER_KEY`, `OH_JUDGE_API_KEY` or `LLM_API_KEY`).
"""

from __future__ import annotations

import argparse
import asyncio
import os
from concurrent.futures import ThreadPoolExecutor

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from openhands.agent_server.temporal.activities import ACTIVITIES
from openhands.agent_server.temporal.models import TASK_QUEUE
from openhands.agent_server.temporal.workflow import GoalWorkflow
from temporalio.client import Client
from temporalio.worker import UnsandboxedWorkflowRunner, Worker


async def serve(address: str, namespace: str, task_queue: str, threads: int) -> None:
    """Run the worker until cancelled."""
    client = await Client.connect(address, namespace=namespace)
    with ThreadPoolExecutor(max_workers=threads) as pool:
        worker = Worker(
            client,
            task_queue=task_queue,
            workflows=[GoalWorkflow],
            activities=ACTIVITIES,
            activity_executor=pool,
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
    parser.add_argument("--threads", type=int, default=16, help="activities at once")
    args = parser.parse_args(argv)
    asyncio.run(serve(args.temporal, args.namespace, args.task_queue, args.threads))


if __name__ == "__main__":
    main()
