"""A training step captured once into a CUDA graph and replayed: at capture
time nothing executes (no syncs, copies or allocations may be reported from
it), and each replay is one graph launch. Nothing to report in steady state."""
import torch

from _common import STEPS, model_and_data

model, optimizer, x, y = model_and_data()
static_x, static_y = x.clone(), y.clone()


def step():
    optimizer.zero_grad(set_to_none=False)
    loss = torch.nn.functional.mse_loss(model(static_x), static_y)
    loss.backward()
    optimizer.step()
    return loss


# Warm up on a side stream (as torch.cuda.graphs requires), then capture.
side = torch.cuda.Stream()
side.wait_stream(torch.cuda.current_stream())
with torch.cuda.stream(side):
    for _ in range(3):
        step()
torch.cuda.current_stream().wait_stream(side)
graph = torch.cuda.CUDAGraph()
with torch.cuda.graph(graph):
    static_loss = step()

for i in range(STEPS):
    static_x.copy_(x)
    graph.replay()
torch.cuda.synchronize()
print(f"graph_replay: last loss {static_loss.item():.4f}")
