"""The full-screen game of ``ddz play`` (Textual): :mod:`ddz.play.tui.app` draws the table
model (:mod:`ddz.play.table_model`) and calls its methods. Importing :mod:`ddz.play` never
imports this package, so the line mode plays without Textual installed."""
