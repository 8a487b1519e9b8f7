from .optimizer import Optimizer, register_optimizer_step_post_hook  # noqa: F401
