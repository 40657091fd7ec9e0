"""Spit referee: watches a game of Spit through a camera and judges every play."""

__version__ = "0.1.0"
