# PyTorch's "Accelerating PyTorch with CUDA" tutorial (beginner_source/
# cuda_tutorial.py) as published, its comments and docstrings shortened
# and its matrices 500 wide (5000 in the tutorial: minutes on the
# simulator). tests/pasted_programs.rs checks what it prints on
# simulated GPUs.
import torch
import time
import torch.nn as nn

print(f"PyTorch version: {torch.__version__}")
print(f"CUDA available: {torch.cuda.is_available()}")

if torch.cuda.is_available():
    print(f"CUDA version: {torch.version.cuda}")
    print(f"cuDNN version: {torch.backends.cudnn.version()}")
    print(f"GPU count: {torch.cuda.device_count()}")
    for i in range(torch.cuda.device_count()):
        print(f"GPU {i}: {torch.cuda.get_device_name(i)}")
        print(f"  Memory: {torch.cuda.get_device_properties(i).total_memory / 1024**3:.1f} GB")
    print(f"Current GPU device: {torch.cuda.current_device()}")
else:
    print("CUDA is not available. This tutorial will demonstrate concepts, but GPU acceleration won't be available.")

device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')
print(f"Using device: {device}")

if torch.cuda.is_available() and torch.cuda.device_count() > 1:
    device = torch.device('cuda:0')  # Use first GPU
    print(f"Using specific GPU: {device}")

x_cpu = torch.randn(1000, 1000)
print(f"Tensor device: {x_cpu.device}")
print(f"Tensor dtype: {x_cpu.dtype}")
print(f"Tensor shape: {x_cpu.shape}")

if torch.cuda.is_available():
    x_gpu = x_cpu.cuda()
    print(f"After .cuda(): {x_gpu.device}")

x_gpu2 = x_cpu.to(device)  # Moves to the device object we created
print(f"After .to(device): {x_gpu2.device}")

if torch.cuda.is_available():
    x_gpu_direct = torch.randn(1000, 1000, device='cuda')
    print(f"Direct GPU creation: {x_gpu_direct.device}")

x_gpu_device = torch.randn(1000, 1000, device=device)
print(f"Created on device: {x_gpu_device.device}")

class SimpleModel(nn.Module):
    """
    A simple linear regression model for demonstration.
    """
    def __init__(self, input_size=10, output_size=1):
        super(SimpleModel, self).__init__()
        self.linear = nn.Linear(input_size, output_size)

    def forward(self, x):
        return self.linear(x)

model_cpu = SimpleModel()
print(f"Model parameters on CPU: {next(model_cpu.parameters()).device}")

model_gpu = model_cpu.to(device)
print(f"Model parameters on GPU: {next(model_gpu.parameters()).device}")

print("All parameters on same device:",
      all(param.device == device for param in model_gpu.parameters()))

def benchmark_operation(operation_name, operation_func, iterations=10):
    times = []
    for _ in range(iterations):
        start_time = time.time()
        result = operation_func()
        # Synchronize GPU operations to get accurate timing
        if torch.cuda.is_available():
            torch.cuda.synchronize()
        end_time = time.time()
        times.append(end_time - start_time)

    avg_time = sum(times) / len(times)
    print(f"{operation_name}: {avg_time:.4f} seconds (avg of {iterations} runs)")
    return avg_time

size = 500
A = torch.randn(size, size)
B = torch.randn(size, size)

def cpu_matrix_mult():
    return torch.mm(A, B)

cpu_time = benchmark_operation("CPU Matrix Multiplication", cpu_matrix_mult)

if torch.cuda.is_available():
    A_gpu = A.to(device)
    B_gpu = B.to(device)

    def gpu_matrix_mult():
        return torch.mm(A_gpu, B_gpu)

    gpu_time = benchmark_operation("GPU Matrix Multiplication", gpu_matrix_mult)
    speedup = cpu_time / gpu_time
    print(".2f")
else:
    print("GPU not available for comparison")

def create_dataset(num_samples=1000, input_size=10):
    X = torch.randn(num_samples, input_size)
    true_weights = torch.randn(input_size, 1)
    y = X @ true_weights + 0.1 * torch.randn(num_samples, 1)
    return X, y

X_train, y_train = create_dataset(1000, 10)
X_val, y_val = create_dataset(200, 10)
X_train = X_train.to(device)
y_train = y_train.to(device)
X_val = X_val.to(device)
y_val = y_val.to(device)

model = SimpleModel(input_size=10, output_size=1).to(device)
criterion = nn.MSELoss()
optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
num_epochs = 100
batch_size = 32
print_every = 20

print(f"Training on device: {device}")
print(f"Training data shape: {X_train.shape}")
print(f"Model parameters: {sum(p.numel() for p in model.parameters())}")

for epoch in range(num_epochs):
    model.train()  # Set model to training mode
    outputs = model(X_train)
    loss = criterion(outputs, y_train)
    optimizer.zero_grad()  # Clear previous gradients
    loss.backward()        # Compute gradients
    optimizer.step()       # Update parameters
    if (epoch + 1) % print_every == 0:
        model.eval()  # Set model to evaluation mode
        with torch.no_grad():  # Disable gradient computation for validation
            val_outputs = model(X_val)
            val_loss = criterion(val_outputs, y_val)

        print(f'Epoch [{epoch+1:3d}/{num_epochs}], '
              f'Train Loss: {loss.item():.4f}, '
              f'Val Loss: {val_loss.item():.4f}')

model.eval()
with torch.no_grad():
    final_outputs = model(X_val)
    final_loss = criterion(final_outputs, y_val)
    print(f'\nFinal validation loss: {final_loss.item():.4f}')

if torch.cuda.is_available():
    print("\nGPU Memory Information:")
    print(torch.cuda.memory_summary(device=device, abbreviated=True))
    print(f"Memory allocated before: {torch.cuda.memory_allocated(device) / 1024**2:.1f} MB")
    large_tensor = torch.randn(10000, 10000, device=device)
    print(f"Memory allocated after: {torch.cuda.memory_allocated(device) / 1024**2:.1f} MB")
    del large_tensor
    torch.cuda.empty_cache()
    print(f"Memory after cleanup: {torch.cuda.memory_allocated(device) / 1024**2:.1f} MB")

def create_model_and_data(device):
    """Create model and data in a device-agnostic way."""
    model = SimpleModel().to(device)
    X, y = create_dataset(100, 10)
    X, y = X.to(device), y.to(device)
    return model, X, y

from torch.utils.data import TensorDataset, DataLoader

def create_data_loader(X, y, batch_size=32, pin_memory=False):
    dataset = TensorDataset(X, y)
    loader = DataLoader(dataset, batch_size=batch_size,
                       shuffle=True, pin_memory=pin_memory)
    return loader

def train_with_gradient_clipping(model, dataloader, num_epochs=10, max_grad_norm=1.0):
    optimizer = torch.optim.Adam(model.parameters())
    criterion = nn.MSELoss()
    for epoch in range(num_epochs):
        for batch_X, batch_y in dataloader:
            outputs = model(batch_X)
            loss = criterion(outputs, batch_y)
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), max_grad_norm)
            optimizer.step()

try:
    from torch.cuda.amp import autocast, GradScaler

    def train_mixed_precision(model, dataloader):
        """Training with automatic mixed precision."""
        scaler = GradScaler()
        for batch_X, batch_y in dataloader:
            optimizer.zero_grad()
            with autocast():
                outputs = model(batch_X)
                loss = criterion(outputs, batch_y)
            scaler.scale(loss).backward()
            scaler.step(optimizer)
            scaler.update()

    print("Mixed precision training is available")
except ImportError:
    print("Mixed precision training requires PyTorch >= 1.6")

def gradient_accumulation_training(model, dataloader, accumulation_steps=4):
    optimizer = torch.optim.Adam(model.parameters())
    criterion = nn.MSELoss()
    optimizer.zero_grad()
    for i, (batch_X, batch_y) in enumerate(dataloader):
        outputs = model(batch_X)
        loss = criterion(outputs, batch_y)
        loss = loss / accumulation_steps  # Normalize loss
        loss.backward()
        if (i + 1) % accumulation_steps == 0:
            optimizer.step()
            optimizer.zero_grad()

def safe_model_forward(model, x):
    if x.device != next(model.parameters()).device:
        x = x.to(next(model.parameters()).device)
    return model(x)

if torch.cuda.is_available() and torch.cuda.device_count() > 1:
    print(f"\nMulti-GPU setup detected: {torch.cuda.device_count()} GPUs available")
    model_multi = nn.DataParallel(SimpleModel())
    model_multi = model_multi.cuda()
    print("Model wrapped with DataParallel")
    print(f"Model device: {next(model_multi.parameters()).device}")
else:
    print("\nSingle GPU or CPU setup - DataParallel not demonstrated")
