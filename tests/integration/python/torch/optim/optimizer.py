"""Stand-in for torch.optim.optimizer: global step post-hooks called after
every Optimizer.step(), as PyTorch 2.x calls them (hook(optimizer, args, kwargs))."""
_global_optimizer_post_hooks = []


def register_optimizer_step_post_hook(hook):
    _global_optimizer_post_hooks.append(hook)


class Optimizer:
    def step(self):
        for hook in _global_optimizer_post_hooks:
            hook(self, (), {})
