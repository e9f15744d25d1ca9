// PracticeCore: the practice domain logic in plain Swift (no ABI, no CLI). Filled in by the practice plugin issue.
