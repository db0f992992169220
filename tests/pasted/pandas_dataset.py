# A custom Dataset as PyTorch's "Datasets & DataLoaders" tutorial writes
# one: its labels read with pandas (`pd.read_csv`, `iloc`), its images
# from files; with Python's csv module writing the table first, and what
# programs do with a DataFrame (columns, dtypes, masks, value counts).
import csv
import os
import tempfile

import numpy as np
import pandas as pd
import torch
from PIL import Image
from torch.utils.data import DataLoader, Dataset

root = tempfile.mkdtemp()
img_dir = os.path.join(root, "images")
os.makedirs(img_dir)
rows = []
for i in range(6):
    pixels = (np.arange(48).reshape(4, 4, 3) * (i + 1)) % 256
    name = f"img_{i}.png"
    Image.fromarray(pixels.astype(np.uint8)).save(os.path.join(img_dir, name))
    rows.append([name, i % 3, round(0.25 * i, 2), "cat" if i % 2 else "dog"])

annotations = os.path.join(root, "labels.csv")
with open(annotations, "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(["file", "label", "weight", "kind"])
    w.writerows(rows)
    w.writerow(["img_x.png", 9, "", 'quoted, "odd"'])

with open(annotations) as f:
    print(f.read().replace("\r\n", "|"))
with open(annotations) as f:
    for d in list(csv.DictReader(f))[:2]:
        print(d)


class CustomImageDataset(Dataset):
    def __init__(self, annotations_file, img_dir, transform=None, target_transform=None):
        self.img_labels = pd.read_csv(annotations_file)
        self.img_labels = self.img_labels[self.img_labels["label"] < 9]
        self.img_dir = img_dir
        self.transform = transform
        self.target_transform = target_transform

    def __len__(self):
        return len(self.img_labels)

    def __getitem__(self, idx):
        img_path = os.path.join(self.img_dir, self.img_labels.iloc[idx, 0])
        image = torch.from_numpy(np.asarray(Image.open(img_path))).permute(2, 0, 1)
        label = self.img_labels.iloc[idx, 1]
        if self.transform:
            image = self.transform(image)
        if self.target_transform:
            label = self.target_transform(label)
        return image, label


table = pd.read_csv(annotations)
print(table)
print(table.shape, len(table), list(table.columns))
print(table.dtypes)
print(table.iloc[1])
print(table.iloc[2, 0], table.iloc[2, 1], table.iloc[-1, 3])
print(table["kind"].value_counts())
print(table[table["label"] == 1])
print(table["weight"].mean(), table["label"].sum(), table["label"].unique())
print(np.asarray(table.iloc[3, 1:3], dtype=float))
print(table.loc[0, "file"], table.loc[1:2, "label"].tolist())
print(table.head(2).to_numpy().shape)

ds = CustomImageDataset(annotations, img_dir, transform=lambda x: x.float() / 255,
                        target_transform=lambda y: torch.tensor(y))
print(len(ds))
image, label = ds[4]
print(image.shape, image.dtype, label.item(), round(image.sum().item(), 4))
loader = DataLoader(ds, batch_size=4, shuffle=False)
for images, labels in loader:
    print(images.shape, labels.tolist(), [round(v, 4) for v in images.mean(dim=(1, 2, 3)).tolist()])

out = pd.DataFrame({"epoch": [1, 2, 3], "loss": [0.9, 0.55, 0.425]})
print(out)
print(out.to_csv(index=False).replace("\n", "|"))
for i, row in out.iterrows():
    print(i, row["epoch"], row["loss"])
