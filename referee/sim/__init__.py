"""The table simulator: card decks, scenes, a camera and a renderer with exact per-frame truth.

See docs/simulator.md. Modules: :mod:`decks` and :mod:`procedural_deck` (card faces),
:mod:`camera` (pinhole camera with distortion), :mod:`textures` (tables), :mod:`scene`
(what is on the table), :mod:`render` (one frame and its truth) with :mod:`hands`,
:mod:`lens` and :mod:`raster`; :mod:`matart` (the play mat), :mod:`contact_sheet`.
"""
