"""The imagenet example's meters, as its training and validation loops use
them: `AverageMeter` and `ProgressMeter` (copied from
examples/imagenet/main.py with its `Summary(Enum)`, compared with `is`),
and its `accuracy` (top-k by `topk` and `eq`), fed with seeded logits
instead of a ResNet's. Many repositories copy these classes as they are.
"""
import torch
import time
from enum import Enum

class Summary(Enum):
    NONE = 0
    AVERAGE = 1
    SUM = 2
    COUNT = 3

class AverageMeter(object):
    """Computes and stores the average and current value"""
    def __init__(self, name, use_accel, fmt=':f', summary_type=Summary.AVERAGE):
        self.name = name
        self.use_accel = use_accel
        self.fmt = fmt
        self.summary_type = summary_type
        self.reset()

    def reset(self):
        self.val = 0
        self.avg = 0
        self.sum = 0
        self.count = 0

    def update(self, val, n=1):
        self.val = val
        self.sum += val * n
        self.count += n
        self.avg = self.sum / self.count

    def all_reduce(self):    
        if self.use_accel:
            device = torch.accelerator.current_accelerator()
        else:
            device = torch.device("cpu")
        total = torch.tensor([self.sum, self.count], dtype=torch.float32, device=device)
        dist.all_reduce(total, dist.ReduceOp.SUM, async_op=False)
        self.sum, self.count = total.tolist()
        self.avg = self.sum / self.count

    def __str__(self):
        fmtstr = '{name} {val' + self.fmt + '} ({avg' + self.fmt + '})'
        return fmtstr.format(**self.__dict__)
    
    def summary(self):
        fmtstr = ''
        if self.summary_type is Summary.NONE:
            fmtstr = ''
        elif self.summary_type is Summary.AVERAGE:
            fmtstr = '{name} {avg:.3f}'
        elif self.summary_type is Summary.SUM:
            fmtstr = '{name} {sum:.3f}'
        elif self.summary_type is Summary.COUNT:
            fmtstr = '{name} {count:.3f}'
        else:
            raise ValueError('invalid summary type %r' % self.summary_type)
        
        return fmtstr.format(**self.__dict__)


class ProgressMeter(object):
    def __init__(self, num_batches, meters, prefix=""):
        self.batch_fmtstr = self._get_batch_fmtstr(num_batches)
        self.meters = meters
        self.prefix = prefix

    def display(self, batch):
        entries = [self.prefix + self.batch_fmtstr.format(batch)]
        entries += [str(meter) for meter in self.meters]
        print('\t'.join(entries))
        
    def display_summary(self):
        entries = [" *"]
        entries += [meter.summary() for meter in self.meters]
        print(' '.join(entries))

    def _get_batch_fmtstr(self, num_batches):
        num_digits = len(str(num_batches // 1))
        fmt = '{:' + str(num_digits) + 'd}'
        return '[' + fmt + '/' + fmt.format(num_batches) + ']'

def accuracy(output, target, topk=(1,)):
    """Computes the accuracy over the k top predictions for the specified values of k"""
    with torch.no_grad():
        maxk = max(topk)
        batch_size = target.size(0)

        _, pred = output.topk(maxk, 1, True, True)
        pred = pred.t()
        correct = pred.eq(target.view(1, -1).expand_as(pred))

        res = []
        for k in topk:
            correct_k = correct[:k].reshape(-1).float().sum(0, keepdim=True)
            res.append(correct_k.mul_(100.0 / batch_size))
        return res



torch.manual_seed(0)
batch_time = AverageMeter('Time', False, ':6.3f', Summary.NONE)
losses = AverageMeter('Loss', False, ':.4e', Summary.NONE)
top1 = AverageMeter('Acc@1', False, ':6.2f', Summary.AVERAGE)
top5 = AverageMeter('Acc@5', False, ':6.2f', Summary.AVERAGE)
count = AverageMeter('N', False, ':3d', Summary.COUNT)
progress = ProgressMeter(12, [batch_time, losses, top1, top5], prefix='Test: ')
for i in range(12):
    output = torch.randn(16, 10)
    target = torch.randint(0, 10, (16,))
    acc1, acc5 = accuracy(output, target, topk=(1, 5))
    loss = torch.nn.functional.cross_entropy(output, target)
    losses.update(loss.item(), 16)
    top1.update(acc1[0], 16)
    top5.update(acc5[0], 16)
    batch_time.update(0.25)
    count.update(1)
    if i % 5 == 0:
        progress.display(i + 1)
progress.display_summary()
print(count.summary(), Summary.SUM, repr(top1.summary_type))
