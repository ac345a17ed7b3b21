"""The miner: recurring changes in a repository's history, proposed as playbooks."""
