"""A compression the agent made of its context, seen in the hook events that show it:
Gemini CLI's model request begins with the summary it made (`BeforeModel`), and a
`/compress` the hook heard (`PreCompress`) flags the conversation before that. A
conversation that lost its plan so is told it whole with the next answer that can."""

from __future__ import annotations

from itertools import pairwise
from typing import Any

from plansight.hook.conversation import Conversation

# Gemini CLI's model message right after a compression's summary (0.61,
# `ChatCompressionService.compress`): the summary is the user message before it.
COMPRESSION_ANSWER = "Got it. Thanks for the additional context!"
# `summary_seen` after a `/compress` the hook heard: its summary is no news.
MANUAL = "manual:"


def saw_compression(conversation: Conversation, request: Any) -> bool:
    """Look at a model request's messages for the summary a compression put first; a new
    one flags the conversation (unless a `/compress` already did). Returns whether the
    conversation changed."""
    summary = _compression_summary(request)
    seen = conversation.summary_seen or ""
    manual, last = seen.startswith(MANUAL), seen.removeprefix(MANUAL) or None
    if summary is None or summary == last:
        if manual:  # that `/compress` compressed nothing
            conversation.summary_seen = last
            return True
        return False
    conversation.summary_seen = summary
    if not manual and conversation.planned:
        conversation.compressed = True
    return True


def _compression_summary(request: Any) -> str | None:
    """A digest of the compression summary `llm_request.messages` begins with, if any."""
    messages = request.get("messages") if isinstance(request, dict) else None
    if not isinstance(messages, list):
        return None
    for before, message in pairwise(messages):
        if (
            isinstance(message, dict)
            and message.get("role") == "model"
            and message.get("content") == COMPRESSION_ANSWER
            and isinstance(before, dict)
            and before.get("role") == "user"
            and isinstance(before.get("content"), str)
        ):
            import hashlib

            text = before["content"].encode("utf-8", "surrogateescape")
            return hashlib.sha256(text).hexdigest()[:24]
    return None
