"""`models fetch` against a local HTTP server: resumes, verifies, refuses unpinned or corrupt downloads."""

from __future__ import annotations

import hashlib
import http.server
import io
import threading
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import ClassVar

import pytest

from daemon.errors import ModelError
from daemon.modelstore.fetch import fetch
from daemon.modelstore.manifest import LOCAL_PIN_NAME, ModelEntry, ModelFile, verify

PAYLOAD = bytes(range(256)) * 4096  # 1 MiB


class RangeHandler(http.server.BaseHTTPRequestHandler):
    """Serves in-memory files with HTTP Range support; records the ranges asked for."""

    files: ClassVar[dict[str, bytes]] = {}
    ranges: ClassVar[list[str]] = []

    def do_GET(self) -> None:
        body = self.files.get(self.path)
        if body is None:
            self.send_error(404)
            return
        start = 0
        if rng := self.headers.get("Range"):
            self.ranges.append(rng)
            start = int(rng.removeprefix("bytes=").split("-")[0])
            self.send_response(206)
            self.send_header("Content-Range", f"bytes {start}-{len(body) - 1}/{len(body)}")
        else:
            self.send_response(200)
        self.send_header("Content-Length", str(len(body) - start))
        self.end_headers()
        self.wfile.write(body[start:])

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def server() -> Iterator[str]:
    RangeHandler.files, RangeHandler.ranges = {}, []
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), RangeHandler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


def entry(url: str, sha256: str = "", md5: str = "") -> ModelEntry:
    f = ModelFile(path="model.bin", size=len(PAYLOAD), url=url, sha256=sha256, md5=md5)
    return ModelEntry(name="m", role="tts", licence="test", source="test", files=(f,))


def test_fetch_verifies_and_lands(server: str, tmp_path: Path) -> None:
    RangeHandler.files["/model.bin"] = PAYLOAD
    path = fetch(entry(f"{server}/model.bin", sha256=hashlib.sha256(PAYLOAD).hexdigest()), tmp_path)
    assert path == tmp_path / "m" / "model.bin" and path.read_bytes() == PAYLOAD
    assert not list(tmp_path.rglob("*.part"))


def test_fetch_resumes_a_partial_download(server: str, tmp_path: Path) -> None:
    RangeHandler.files["/model.bin"] = PAYLOAD
    part = tmp_path / "m" / "model.bin.part"
    part.parent.mkdir(parents=True)
    part.write_bytes(PAYLOAD[:300_000])
    fetch(entry(f"{server}/model.bin", sha256=hashlib.sha256(PAYLOAD).hexdigest()), tmp_path)
    assert RangeHandler.ranges == ["bytes=300000-"]
    assert (tmp_path / "m" / "model.bin").read_bytes() == PAYLOAD


def test_a_download_that_does_not_match_its_pin_is_discarded(server: str, tmp_path: Path) -> None:
    RangeHandler.files["/model.bin"] = PAYLOAD[::-1]
    with pytest.raises(ModelError) as info:
        fetch(entry(f"{server}/model.bin", sha256=hashlib.sha256(PAYLOAD).hexdigest()), tmp_path)
    assert info.value.code == "models-fetch-corrupt"
    assert not (tmp_path / "m" / "model.bin").exists() and not list(tmp_path.rglob("*.part"))


def test_unpinned_files_are_refused_unless_the_user_pins_them(server: str, tmp_path: Path) -> None:
    RangeHandler.files["/model.bin"] = PAYLOAD
    unpinned = entry(f"{server}/model.bin")
    with pytest.raises(ModelError) as info:
        fetch(unpinned, tmp_path)
    assert info.value.code == "models-unpinned" and "--pin model.bin=" in info.value.message
    assert not RangeHandler.ranges and not (tmp_path / "m").exists()
    path = fetch(unpinned, tmp_path, {"model.bin": hashlib.sha256(PAYLOAD).hexdigest()})
    assert verify(unpinned, tmp_path) == path  # the user's pin is kept and checked later
    path.write_bytes(PAYLOAD[::-1])
    with pytest.raises(ModelError, match="digest you pinned"):
        verify(unpinned, tmp_path)


def test_md5_only_pins_are_checked(server: str, tmp_path: Path) -> None:
    RangeHandler.files["/model.bin"] = PAYLOAD
    fetch(entry(f"{server}/model.bin", md5=hashlib.md5(PAYLOAD).hexdigest()), tmp_path)
    with pytest.raises(ModelError, match="md5"):
        fetch(entry(f"{server}/model.bin", md5="0" * 32), tmp_path / "other")


def zipped(members: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    return buf.getvalue()


def archive_entry(url: str, blob: bytes) -> ModelEntry:
    return ModelEntry(
        name="stt-model",
        role="stt",
        licence="test",
        source="test",
        engine="vosk",
        archive=ModelFile(url=url, size=len(blob), sha256=hashlib.sha256(blob).hexdigest()),
        files=(ModelFile(path="model-0.1", dir=True),),
    )


def test_archives_are_extracted_pinned_locally_and_verified(server: str, tmp_path: Path) -> None:
    blob = zipped({"model-0.1/am/final.mdl": b"acoustic", "model-0.1/conf/mfcc.conf": b"--x=1"})
    RangeHandler.files["/model.zip"] = blob
    e = archive_entry(f"{server}/model.zip", blob)
    path = fetch(e, tmp_path)
    assert (path / "am" / "final.mdl").read_bytes() == b"acoustic"
    assert (path / LOCAL_PIN_NAME).is_file() and not (tmp_path / ".downloads" / "model.zip").exists()
    (path / "am" / "final.mdl").write_bytes(b"acoustiX")
    with pytest.raises(ModelError, match="tree sha256 mismatch"):
        verify(e, tmp_path)


def test_archive_members_cannot_escape(server: str, tmp_path: Path) -> None:
    blob = zipped({"model-0.1/ok": b"1", "../../evil": b"2"})
    RangeHandler.files["/model.zip"] = blob
    with pytest.raises(ModelError, match="escapes"):
        fetch(archive_entry(f"{server}/model.zip", blob), tmp_path / "models")
    assert not (tmp_path / "evil").exists()
