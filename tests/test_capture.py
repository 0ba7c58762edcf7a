"""vision.capture: files, folders, paced playback and live sources (faked: no camera, no network)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from pathlib import Path

import cv2
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from vision.capture import (
    DEFAULT_FPS,
    CaptureError,
    Frame,
    LiveTiming,
    Source,
    SourceStatus,
    open_source,
    parse_spec,
)

W, H, BITS = 64, 48, 8
FAST = LiveTiming(stall=0.05, backoff_first=0.01, backoff_cap=0.04, join=2.0)


def encoded(i: int) -> np.ndarray:
    """A frame whose eight vertical stripes are the bits of ``i`` (black 0, white 1)."""
    image = np.zeros((H, W, 3), np.uint8)
    for bit in range(BITS):
        if i >> bit & 1:
            image[:, bit * (W // BITS) : (bit + 1) * (W // BITS)] = 255
    return image


def decoded(image: np.ndarray) -> int:
    stripe = W // BITS
    return sum(1 << b for b in range(BITS) if image[:, b * stripe + 2 : (b + 1) * stripe - 2].mean() > 128)


def write_video(path: Path, n: int, fps: float, codec: str) -> Path:
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*codec), fps, (W, H))
    assert writer.isOpened(), f"OpenCV cannot write {codec} here"
    for i in range(n):
        writer.write(encoded(i))
    writer.release()
    return path


def wait_for(condition: Callable[[], bool], seconds: float = 3.0) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.005)


def states(statuses: list[SourceStatus]) -> list[str]:
    out: list[str] = []
    for s in statuses:
        if not out or out[-1] != s.state:
            out.append(s.state)
    return out


# Offline sources


@pytest.mark.parametrize(("name", "codec"), [("clip.mp4", "mp4v"), ("clip.avi", "MJPG")])
def test_video_file_every_frame_in_order(tmp_path: Path, name: str, codec: str) -> None:
    path = write_video(tmp_path / name, 20, 10.0, codec)
    seen: list[SourceStatus] = []
    with open_source(str(path), on_status=seen.append) as source:
        assert isinstance(source, Source)
        assert (source.live, source.fps, source.size, source.kind) == (False, 10.0, (W, H), "file")
        frames = list(source)
        assert source.read() is None
        status = source.status()
    assert [f.index for f in frames] == list(range(20))
    assert [decoded(f.image) for f in frames] == list(range(20))
    assert [f.t for f in frames] == pytest.approx([i / 10.0 for i in range(20)], abs=1e-6)
    assert all(f.dropped == 0 for f in frames)
    assert all(f.image.shape == (H, W, 3) and f.image.dtype == np.uint8 for f in frames)
    assert (status.state, status.frames_read, status.dropped_total) == ("ended", 20, 0)
    assert "20 frames" in status.message
    assert states(seen) == ["running", "ended"]
    assert not [t for t in threading.enumerate() if t.name.startswith("capture")]


def test_video_file_fps_given_sets_timestamps(tmp_path: Path) -> None:
    path = write_video(tmp_path / "clip.avi", 6, 10.0, "MJPG")
    with open_source(path.as_posix(), fps=4.0) as source:
        assert [f.t for f in source] == [i / 4.0 for i in range(6)]


class FakeFile:
    """A video file whose backend states no frame rate and no positions."""

    def __init__(self, n: int) -> None:
        self.left = n

    def isOpened(self) -> bool:  # noqa: N802
        return True

    def read(self) -> tuple[bool, np.ndarray | None]:
        if self.left == 0:
            return False, None
        self.left -= 1
        return True, np.zeros((H, W), np.uint8)

    def get(self, prop_id: int) -> float:
        return float("nan") if prop_id == cv2.CAP_PROP_FPS else 0.0

    def release(self) -> None:
        pass


def test_video_file_without_stated_rate_or_positions(tmp_path: Path) -> None:
    (tmp_path / "odd.mp4").write_bytes(b"x")
    with open_source(str(tmp_path / "odd.mp4"), opener=lambda _: FakeFile(5)) as source:
        assert source.fps == DEFAULT_FPS
        frames = list(source)
    assert [f.t for f in frames] == pytest.approx([i / DEFAULT_FPS for i in range(5)])
    assert frames[0].image.shape == (H, W, 3)


def make_folder(folder: Path, n: int) -> list[str]:
    folder.mkdir()
    names = [f"frame_{i + 1}.{'jpg' if i % 2 else 'PNG'}" for i in range(n)]
    for i, name in enumerate(names):
        assert cv2.imwrite(str(folder / name.replace("PNG", "png")), encoded(i))
        (folder / name.replace("PNG", "png")).rename(folder / name)
    (folder / "notes.txt").write_text("not an image")
    return names


def test_image_folder_in_natural_order(tmp_path: Path) -> None:
    make_folder(tmp_path / "shots", 12)
    with open_source(str(tmp_path / "shots"), fps=4.0) as source:
        assert (source.live, source.kind, source.fps) == (False, "folder", 4.0)
        frames = list(source)
        assert source.status().state == "ended"
    assert [f.index for f in frames] == list(range(12))
    assert [decoded(f.image) for f in frames] == list(range(12))  # frame_10 after frame_9
    assert [f.t for f in frames] == [i / 4.0 for i in range(12)]
    assert source.size == (W, H)


def test_image_folder_default_rate(tmp_path: Path) -> None:
    make_folder(tmp_path / "shots", 3)
    with open_source(str(tmp_path / "shots")) as source:
        assert [f.t for f in source] == [i / 15.0 for i in range(3)]


def test_image_folder_times_file(tmp_path: Path) -> None:
    names = make_folder(tmp_path / "shots", 3)
    (tmp_path / "shots" / "times.txt").write_text(
        f"# name seconds\n{names[2]} 2.5\n\n{names[0]} 0.25\n{names[1]} 1\n"
    )
    with open_source(str(tmp_path / "shots")) as source:
        assert [f.t for f in source] == [0.25, 1.0, 2.5]


@pytest.mark.parametrize(
    ("text", "words"),
    [("frame_1.PNG 0\n", "no time for frame_2.jpg"), ("frame_1.PNG 1\nframe_2.jpg 0.5\n", "before"),
     ("frame_1.PNG soon\nframe_2.jpg 1\n", "'soon' is not a number")],
)
def test_image_folder_bad_times_file(tmp_path: Path, text: str, words: str) -> None:
    make_folder(tmp_path / "shots", 2)
    (tmp_path / "shots" / "times.txt").write_text(text)
    with pytest.raises(CaptureError, match="times.txt") as info:
        open_source(str(tmp_path / "shots"))
    assert words in str(info.value)


# Errors and source strings


def test_missing_path_names_it(tmp_path: Path) -> None:
    missing = tmp_path / "nope.mp4"
    with pytest.raises(CaptureError, match="no such file or folder") as info:
        open_source(str(missing))
    assert str(missing) in str(info.value)
    assert isinstance(info.value, ValueError)


def test_empty_folder_names_it(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    (tmp_path / "empty" / "readme.txt").write_text("no images here")
    with pytest.raises(CaptureError, match="no images") as info:
        open_source(str(tmp_path / "empty"))
    assert str(tmp_path / "empty") in str(info.value)


def test_file_that_is_no_video(tmp_path: Path) -> None:
    (tmp_path / "fake.mp4").write_text("hello")
    with pytest.raises(CaptureError, match="cannot open") as info:
        open_source(str(tmp_path / "fake.mp4"))
    assert "fake.mp4" in str(info.value)


@pytest.mark.parametrize(("spec", "name"), [("3", "camera 3"), (3, "camera 3"),
                                            ("http://phone:8080/video", "stream http://phone:8080/video")])
def test_unopenable_camera_or_stream(spec: str | int, name: str) -> None:
    world = FakeWorld()
    world.plugged = False
    with pytest.raises(CaptureError, match="cannot open") as info:
        open_source(spec, opener=world.open)
    assert name in str(info.value)
    assert all(c.released for c in world.caps)


@pytest.mark.parametrize("spec", ["", "  ", -1, 1.5, None, True])
def test_bad_spec(spec: object) -> None:
    with pytest.raises(CaptureError):
        open_source(spec)  # type: ignore[arg-type]


@pytest.mark.parametrize("fps", [0.0, -5.0, float("nan"), float("inf")])
def test_bad_fps(fps: float, tmp_path: Path) -> None:
    with pytest.raises(CaptureError, match="fps"):
        open_source(str(tmp_path), fps=fps)


def test_parse_spec(tmp_path: Path) -> None:
    assert (parse_spec("0").kind, parse_spec("0").target) == ("camera", 0)
    assert (parse_spec(2).kind, parse_spec(" 1 ").target) == ("camera", 1)
    assert parse_spec("/dev/video2").kind == "camera"
    assert parse_spec("rtsp://cam.local:554/stream").kind == "url"
    url = parse_spec("http://me:secret@192.168.1.5:8080/video")
    assert (url.kind, url.target) == ("url", "http://me:secret@192.168.1.5:8080/video")
    assert "secret" not in url.name and "me:***@192.168.1.5:8080/video" in url.name
    (tmp_path / "a.avi").write_bytes(b"")
    assert parse_spec(str(tmp_path)).kind == "folder"
    assert parse_spec(str(tmp_path / "a.avi")).kind == "file"


def test_backoff_doubles_to_cap() -> None:
    timing = LiveTiming()
    assert [timing.backoff(a) for a in range(6)] == [0.5, 1.0, 2.0, 4.0, 5.0, 5.0]
    assert timing.backoff(10_000) == 5.0


@given(st.lists(st.integers(0, 10_000), unique=True, min_size=1, max_size=30))
def test_folder_order_is_numeric(numbers: list[int]) -> None:
    from vision.capture import _natural_key

    names = [f"img{n}.png" for n in numbers]
    assert sorted(names, key=_natural_key) == [f"img{n}.png" for n in sorted(numbers)]


# Paced playback


def test_paced_file_drops_for_a_slow_consumer(tmp_path: Path) -> None:
    path = write_video(tmp_path / "clip.avi", 30, 60.0, "MJPG")
    seen: list[SourceStatus] = []
    source = open_source(str(path), pace=True, on_status=seen.append)
    try:
        assert source.live
        frames: list[Frame] = []
        for frame in source:
            frames.append(frame)
            time.sleep(0.04)
        assert source.read(timeout=0.01) is None
    finally:
        source.close()
    indices = [f.index for f in frames]
    assert indices == sorted(set(indices)) and indices[-1] == 29
    assert [decoded(f.image) for f in frames] == indices
    assert [f.t for f in frames] == pytest.approx([i / 60.0 for i in indices], abs=1e-6)
    previous = -1
    for f in frames:
        assert f.dropped == f.index - previous - 1
        previous = f.index
    assert sum(f.dropped for f in frames) == source.dropped_total > 0
    assert len(frames) + source.dropped_total == 30
    status = source.status()
    assert (status.state, status.frames_read, status.dropped_total) == ("ended", 30, source.dropped_total)
    assert states(seen) == ["running", "ended"]
    assert not source.thread.is_alive()  # type: ignore[attr-defined]


def test_paced_folder_keeps_real_time(tmp_path: Path) -> None:
    make_folder(tmp_path / "shots", 4)
    start = time.monotonic()
    with open_source(str(tmp_path / "shots"), fps=20.0, pace=True) as source:
        frames = list(source)
    assert time.monotonic() - start >= 3 / 20.0
    assert [f.index for f in frames] == [0, 1, 2, 3]


# Live sources, faked


class FakeWorld:
    """A camera that can be unplugged: its open handles die, reopening fails until plugged in."""

    def __init__(self, period: float = 0.003, grey: bool = False) -> None:
        self.plugged = True
        self.epoch = 0
        self.count = 0
        self.period = period
        self.grey = grey
        self.caps: list[FakeCap] = []
        self.lock = threading.Lock()

    def open(self, target: str | int) -> FakeCap:
        cap = FakeCap(self, self.epoch if self.plugged else -1)
        self.caps.append(cap)
        return cap

    def unplug(self) -> None:
        with self.lock:
            self.plugged = False
            self.epoch += 1

    def plug(self) -> None:
        self.plugged = True


class FakeCap:
    def __init__(self, world: FakeWorld, epoch: int) -> None:
        self.world = world
        self.epoch = epoch
        self.released = False

    def isOpened(self) -> bool:  # noqa: N802
        return self.epoch >= 0 and not self.released

    def read(self) -> tuple[bool, np.ndarray | None]:
        time.sleep(self.world.period)
        with self.world.lock:
            if self.released or not self.world.plugged or self.epoch != self.world.epoch:
                return False, None
            i = self.world.count
            self.world.count += 1
        image = encoded(i % 256)
        return True, (image[:, :, 0] if self.world.grey else image)

    def get(self, prop_id: int) -> float:
        return 30.0 if prop_id == cv2.CAP_PROP_FPS else 0.0

    def release(self) -> None:
        self.released = True


def take(source: Source, n: int, seconds: float = 3.0) -> list[Frame]:
    frames: list[Frame] = []
    deadline = time.monotonic() + seconds
    while len(frames) < n:
        assert time.monotonic() < deadline, f"only {len(frames)} of {n} frames"
        frame = source.read(timeout=0.2)
        if frame is not None:
            frames.append(frame)
    return frames


def test_live_camera_vanishes_and_returns() -> None:
    world = FakeWorld()
    seen: list[SourceStatus] = []
    source = open_source("0", opener=world.open, on_status=seen.append, timing=FAST)
    try:
        assert (source.live, source.kind, source.fps) == (True, "camera", 30.0)
        before = take(source, 5)
        world.unplug()
        wait_for(lambda: source.status().state == "reconnecting")
        wait_for(lambda: len(world.caps) >= 3)  # reopen tries fail while unplugged
        world.plug()
        after = take(source, 5)
        wait_for(lambda: source.status().state == "running")
        status = source.status()
    finally:
        source.close()
    assert states(seen) == ["running", "reconnecting", "running", "ended"]
    assert status.reconnects == 1
    assert "frames again" in status.message
    frames = before + after
    assert all(a.index < b.index and a.t < b.t for a, b in zip(frames, frames[1:], strict=False))
    assert all(0 <= f.t < 10.0 for f in frames)
    assert "reopen try" in next(s.message for s in seen if s.state == "reconnecting")
    assert not source.thread.is_alive()  # type: ignore[attr-defined]
    assert all(c.released for c in world.caps)
    assert source.read() is None


def test_live_camera_drops_for_a_slow_consumer() -> None:
    world = FakeWorld(period=0.002, grey=True)
    with open_source(1, opener=world.open, timing=FAST) as source:
        frames = []
        for _ in range(6):
            frames.append(source.read(timeout=2.0))
            time.sleep(0.03)
    assert all(f is not None and f.image.shape == (H, W, 3) for f in frames)
    got = [f for f in frames if f is not None]
    assert all(a.index < b.index for a, b in zip(got, got[1:], strict=False))
    assert sum(f.dropped for f in got) == source.dropped_total > 0
    assert source.size == (W, H)


def test_live_camera_without_reconnect_fails() -> None:
    world = FakeWorld()
    seen: list[SourceStatus] = []
    source = open_source("rtsp://cam/stream", opener=world.open, reconnect=False, timing=FAST,
                         on_status=seen.append)
    take(source, 2)
    world.unplug()
    wait_for(lambda: source.status().state == "failed")
    source.read(timeout=0.1)  # the last frame before the camera went, if it was not taken
    assert source.read(timeout=0.1) is None
    source.close()
    assert states(seen) == ["running", "failed"]
    assert "no frame" in source.status().message
    assert len(world.caps) == 1 and world.caps[0].released


def test_close_stops_the_reader_promptly_even_while_waiting_to_reconnect() -> None:
    world = FakeWorld()
    slow = LiveTiming(stall=0.05, backoff_first=30.0, backoff_cap=30.0, join=2.0)
    source = open_source("0", opener=world.open, timing=slow)
    take(source, 1)
    world.unplug()
    wait_for(lambda: source.status().state == "reconnecting")
    start = time.monotonic()
    source.close()
    assert time.monotonic() - start < 1.0
    assert not source.thread.is_alive()  # type: ignore[attr-defined]
    assert source.status().state == "ended" and "closed" in source.status().message
    source.close()


def test_a_failing_status_callback_does_not_stop_the_reader() -> None:
    def broken(status: SourceStatus) -> None:
        if status.state == "reconnecting":
            raise RuntimeError("dashboard down")

    world = FakeWorld()
    with open_source("0", opener=world.open, timing=FAST, on_status=broken) as source:
        take(source, 1)
        world.unplug()
        wait_for(lambda: source.status().state == "reconnecting")
        world.plug()
        wait_for(lambda: source.status().reconnects == 1)
        assert take(source, 2)
