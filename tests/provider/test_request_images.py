"""The images one Messages API request carries (providers.anthropic_request.sent_images): the
newest, at most 20 and 20 MiB of base64, none over the API's 5 MB for one image."""

from __future__ import annotations

from iac_code.core.conversation import ImageBlock, Message, TextBlock
from iac_code.providers.anthropic_request import message_params


def image(name: str, size: int = 8) -> ImageBlock:
    """An image named `name` (lower case) whose base64 is `size` long and starts with its name."""
    return ImageBlock(media_type="image/png", data=name.ljust(size, "A"), name=name)


def sent(messages: list[Message]) -> list[str]:
    """What the request says of each image, in order: its name if sent, `-name` if left out."""
    out = []
    for m in message_params(messages):
        for block in m["content"]:
            if block["type"] == "image":
                out.append(block["source"]["data"].rstrip("A"))
            elif block["text"].startswith("[image "):
                out.append("-" + block["text"].split()[1].rstrip(":"))
    return out


def user(*blocks: ImageBlock) -> Message:
    return Message(role="user", content=[TextBlock(text="look"), *blocks])


def reply() -> Message:
    return Message(role="assistant", content=[TextBlock(text="seen")])


def test_the_newest_twenty_images_are_sent_in_order_and_the_older_are_named():
    history = [user(image(f"a{n}"), image(f"b{n}")) for n in range(13)]
    messages = [m for u in history for m in (u, reply())][:-1]
    out = sent(messages)
    assert out[:6] == ["-a0", "-b0", "-a1", "-b1", "-a2", "-b2"]
    assert out[6:] == [f"{k}{n}" for n in range(3, 13) for k in "ab"]


def test_twenty_mib_of_images_at_most_the_newest_first():
    big = 5 * 1024 * 1024 - 100  # just within the API's 5 MB for one image
    messages = [user(image(f"i{n}", big)) if n % 2 == 0 else reply() for n in range(9)]
    assert sent(messages) == ["-i0", "i2", "i4", "i6", "i8"]


def test_an_image_over_the_apis_limit_from_an_old_session_is_left_out_and_the_rest_go():
    messages = [user(image("huge", 5 * 1024 * 1024 + 10)), reply(), user(image("fine"))]
    assert sent(messages) == ["-huge", "fine"]
    marker = message_params(messages)[0]["content"][1]["text"]
    assert "larger than the API's 5 MB for one image" in marker
