"""print(tensor) every step: formatting a CUDA tensor copies it to the host."""
from _common import STEPS, model_and_data, train_step

model, optimizer, x, y = model_and_data()
for step in range(STEPS):
    loss = train_step(model, optimizer, x, y)
    print("loss", loss)  # expect: hidden-sync op=format per_step=any
