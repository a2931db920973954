"""The organizer: keeps memory small and clean (scan -> cluster -> plan -> gate -> apply)."""
