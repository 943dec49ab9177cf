"""The native transport: OpenAI-compatible chat completions over httpx, without litellm.

`call.complete_native` is its entry (through `llm/transport.py`); `request` builds what is
sent, `params` and `shaping` hold litellm's rules for it, `client` sends it, `response`
reads the answer, `chunks` is the streamed chunk type. Nothing here imports litellm.
"""
