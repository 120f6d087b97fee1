"""E-mail (.eml): headers as a citable block, the body, attachments handed on, odd encodings."""

from __future__ import annotations

from email import policy
from email.message import EmailMessage
from pathlib import Path

import pytest

from polyrag.errors import EmptyFileError
from polyrag.parse.base import Document
from polyrag.parse.email import EmailParser
from polyrag.parse.router import ParserRouter
from polyrag.parse.sniff import sniff
from polyrag.types import BlockKind

CORPUS = Path(__file__).parents[3] / "shared" / "eval" / "corpus"
needs_corpus = pytest.mark.skipif(not CORPUS.is_dir(), reason="the shared eval corpus is absent")


def parse_corpus(name: str) -> Document:
    data = (CORPUS / "email" / name).read_bytes()
    assert sniff(data, name) == "email"
    return ParserRouter().parse(data, name)


def text_of(document: Document) -> str:
    return "\n".join(block.text for block in document.blocks)


@needs_corpus
def test_headers_come_first_then_the_plain_body() -> None:
    document = parse_corpus("unstructured__fake-email.eml")
    assert document.media_type == "email"
    assert document.title == "Test Email"
    heading, headers, *body = document.blocks
    assert (heading.kind, heading.text) == (BlockKind.HEADING, "Test Email")
    assert headers.text.splitlines() == [
        "From: Matthew Robinson <mrobinson@unstructured.io>",
        "To: NotMatthew <NotMatthew@notunstructured.com>",
        "Date: Fri, 16 Dec 2022 17:04:16 -0500",
        "Subject: Test Email",
    ]
    body_text = "\n".join(block.text for block in body)
    assert "This is a test email to use for unit tests." in body_text
    assert "Violets are blue" in body_text
    assert "<div" not in body_text  # the plain alternative, not the HTML one


@needs_corpus
@pytest.mark.parametrize(
    "name",
    ["unstructured__fake-email-utf-16.eml", "unstructured__fake-email-malformed-encoding.eml"],
)
def test_utf16_and_malformed_charsets_read_like_the_plain_file(name: str) -> None:
    document = parse_corpus(name)
    text = text_of(document)
    assert "From: Matthew Robinson <mrobinson@unstructured.io>" in text
    assert "This is a test email to use for unit tests." in text
    assert "Roses are red" in text


@needs_corpus
def test_html_only_body_goes_through_the_html_text_extraction() -> None:
    document = parse_corpus("unstructured__mime-html-only.eml")
    text = text_of(document)
    assert "Gmail was launched by Google in 2004 with 1 GB of free storage" in text
    assert "<p>" not in text and "Date: Tue, 01 Oct 2024 12:34:56 -0500" in text


@needs_corpus
@pytest.mark.parametrize(
    ("name", "attachment", "kind"),
    [
        ("unstructured__fake-email-attachment.eml", "fake-attachment.txt", "text"),
        ("unstructured__email-with-image.eml", "unstructured_logo.png", "image"),
        ("unstructured__mime-attach-mp3.eml", "sample-3s.mp3", "audio"),
        ("unstructured__email-no-utf8-2014-03-17.111517.eml", "google.png", "image"),
    ],
)
def test_attachments_are_handed_on_with_their_names(name: str, attachment: str, kind: str) -> None:
    document = parse_corpus(name)
    names = {item.name: item.data for item in document.attachments}
    assert attachment in names
    assert sniff(names[attachment], attachment) == kind
    assert f"Attachments: {attachment}" in text_of(document) or attachment in text_of(document)


@needs_corpus
def test_encrypted_message_keeps_its_headers_and_says_the_body_is_encrypted() -> None:
    document = parse_corpus("unstructured__fake-encrypted.eml")
    text = text_of(document)
    assert "From: Michael Elkins <elkins@aero.org>" in text
    assert "The body of this message is encrypted." in text
    assert "BEGIN PGP MESSAGE" not in text
    assert document.warnings and "encrypted (PGP/MIME)" in document.warnings[0]
    assert document.attachments == ()


def _message() -> EmailMessage:
    message = EmailMessage(policy=policy.default)
    message["From"] = "Ada Lovelace <ada@example.org>"
    message["To"] = "Charles Babbage <charles@example.org>"
    message["Cc"] = "Mary Somerville <mary@example.org>"
    message["Date"] = "Mon, 02 Jan 2023 09:30:00 +0000"
    message["Subject"] = "Engine notes"
    return message


def test_forwarded_message_and_inline_image_become_attachments() -> None:
    inner = _message()
    inner.replace_header("Subject", "Original plan")
    inner.set_content("The analytical engine needs 1,000 columns.")
    outer = _message()
    outer.set_content("See the forwarded plan.")
    outer.add_related(b"\x89PNG\r\n\x1a\n" + b"\x00" * 32, "image", "png", cid="<logo@x>")
    outer.add_attachment(inner)
    outer.add_attachment(b"a,b\n1,2\n", maintype="text", subtype="csv", filename="dir/da#ta.csv")
    outer.add_attachment(b"a,b\n3,4\n", maintype="text", subtype="csv", filename="da#ta.csv")
    document = EmailParser().parse(outer.as_bytes(), name="outer.eml")
    text = text_of(document)
    assert "Cc: Mary Somerville <mary@example.org>" in text
    assert "See the forwarded plan." in text
    names = [attachment.name for attachment in document.attachments]
    assert names[0].endswith(".png")
    assert "Original plan.eml" in names
    assert "da_ta.csv" in names and "da_ta (2).csv" in names  # no "#" or "/" in child paths
    forwarded = dict((a.name, a.data) for a in document.attachments)["Original plan.eml"]
    child = ParserRouter().parse(forwarded, "Original plan.eml")
    assert child.title == "Original plan"
    assert "1,000 columns" in text_of(child)


def test_unknown_charset_falls_back_to_detection() -> None:
    raw = (
        b"From: a@example.org\r\nTo: b@example.org\r\nSubject: Caf\xc3\xa9\r\n"
        b"Content-Type: text/plain; charset=x-unknown-charset\r\n\r\n"
        b"Caf\xc3\xa9 au lait costs 3 euros.\r\n"
    )
    document = EmailParser().parse(raw, name="odd.eml")
    assert "Café au lait costs 3 euros." in text_of(document)


def test_smime_enveloped_message_is_reported_as_encrypted() -> None:
    message = _message()
    message.set_content(
        b"\x30\x80\x06\x09garbage",
        maintype="application",
        subtype="pkcs7-mime",
        params={"smime-type": "enveloped-data"},
        filename="smime.p7m",
    )
    document = EmailParser().parse(message.as_bytes(), name="secret.eml")
    assert any("S/MIME" in warning for warning in document.warnings)
    assert "From: Ada Lovelace <ada@example.org>" in text_of(document)
    assert document.attachments == ()


@pytest.mark.parametrize("data", [b"", b"   \r\n\r\n  "])
def test_empty_email_is_a_clear_empty_file_error(data: bytes) -> None:
    with pytest.raises(EmptyFileError, match="empty e-mail"):
        EmailParser().parse(data, name="empty.eml")


@needs_corpus
def test_whitespace_only_eml_from_the_corpus_is_refused_as_empty() -> None:
    data = (CORPUS / "malformed" / "unstructured__empty.eml").read_bytes()
    with pytest.raises(EmptyFileError):
        ParserRouter().parse(data, "unstructured__empty.eml")
