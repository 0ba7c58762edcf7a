"""Helper for the tests that follow rendered games: the first frames of a game video as a file."""

from __future__ import annotations

from pathlib import Path


def write_clip(path: Path, game: str, players: int, seed: int, frames: int, fps: float):
    """Render the first ``frames`` frames of ``game``'s video (``seed``, 1280 × 720 at ``fps``) into
    the MP4 file ``path``; return the :class:`~vision.synth.video.GameVideo`."""
    import cv2

    from vision.synth.video import GameVideo, VideoSpec

    video = GameVideo(VideoSpec(game=game, players=players, seed=seed, fps=fps))
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"mp4v"), fps, (1280, 720))
    for f in range(frames):
        writer.write(video.render(f)[0])
    writer.release()
    return video
