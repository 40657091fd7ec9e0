"""The table simulator: what an overhead camera sees of a game of Spit, with the exact truth.

See docs/simulator.md, docs/sim-motion.md and docs/sim-pipeline.md. Modules, from the bottom:

- :mod:`decks` and :mod:`procedural_deck`: card faces and backs.
- :mod:`camera` (pinhole camera with distortion), :mod:`textures` (tables), :mod:`matart`
  (the play mat), :mod:`scene` (what is on the table in one frame).
- :mod:`render` (one frame and its truth) with :mod:`hands`, :mod:`lens` and :mod:`raster`.
- :mod:`kinematics` and :mod:`motion`: a game's events as cards and hands moving in time.
- :mod:`scenarios`: named game fragments; :mod:`clip`: a fragment rendered to video with
  :mod:`video` (H.264) and :mod:`truth` (the files beside it); :mod:`fixtures`: the recorded
  test clips.
- :mod:`dataset`: training data for the card model; :mod:`contact_sheet`: overview images.
"""
