"""The simulator's vocabulary: how a feature block says it is played, as plain data (:mod:`.vocabulary`)."""
