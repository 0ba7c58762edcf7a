"""Card recognition: top-down frames → named, outlined cards; deck enrolment; shipped models.

``Recogniser(deck)`` loads ``models/<deck>/`` with the fastest installed backend (ONNX Runtime,
OpenVINO, or PyTorch as a fallback) and recognises frames (:mod:`.recogniser`); ``enrol`` builds a
deck profile from grid photos of the user's own deck (:mod:`.enrol`).
"""

from vision.recognise.cards import RecognisedCard
from vision.recognise.profile import DeckProfile, load_profile
from vision.recognise.recogniser import Recogniser

__all__ = ["DeckProfile", "RecognisedCard", "Recogniser", "load_profile"]
