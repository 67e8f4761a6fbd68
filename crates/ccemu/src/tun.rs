//! A Linux TUN device (layer 3, no packet-information header), opened
//! non-blocking: `read` returns one IP packet or `None` when none is waiting,
//! `write` sends one IP packet into the kernel.
//!
//! Reference: Documentation/networking/tuntap.rst. Without IFF_VNET_HDR the
//! kernel never hands a TUN device a GSO super-packet, so every packet read is
//! at most the device's MTU (the segmentation offloads are off by construction).
//! The device lives as long as its file descriptor: when the emulator exits,
//! even by SIGKILL, the kernel removes it.

use std::io;
use std::os::fd::RawFd;

const TUNSETIFF: libc::c_ulong = 0x4004_54ca;
const IFF_TUN: libc::c_short = 0x0001;
const IFF_NO_PI: libc::c_short = 0x1000;

#[repr(C)]
struct IfReq {
    name: [u8; libc::IFNAMSIZ],
    flags: libc::c_short,
    _pad: [u8; 22],
}

pub struct Tun {
    fd: RawFd,
    pub name: String,
}

impl Tun {
    /// Creates (or attaches to) the TUN device `name` in the current namespace.
    pub fn open(name: &str) -> io::Result<Tun> {
        if name.is_empty() || name.len() >= libc::IFNAMSIZ {
            return Err(io::Error::new(io::ErrorKind::InvalidInput, format!("bad interface name {name:?}")));
        }
        let fd = unsafe { libc::open(c"/dev/net/tun".as_ptr(), libc::O_RDWR | libc::O_NONBLOCK | libc::O_CLOEXEC) };
        if fd < 0 {
            return Err(io::Error::last_os_error());
        }
        let mut req = IfReq { name: [0; libc::IFNAMSIZ], flags: IFF_TUN | IFF_NO_PI, _pad: [0; 22] };
        req.name[..name.len()].copy_from_slice(name.as_bytes());
        if unsafe { libc::ioctl(fd, TUNSETIFF as _, &mut req) } < 0 {
            let e = io::Error::last_os_error();
            unsafe { libc::close(fd) };
            return Err(e);
        }
        Ok(Tun { fd, name: name.to_string() })
    }

    pub fn fd(&self) -> RawFd {
        self.fd
    }

    /// One packet into `buf`: its length, or `None` if no packet is waiting.
    #[inline]
    pub fn read(&self, buf: &mut [u8]) -> io::Result<Option<usize>> {
        let n = unsafe { libc::read(self.fd, buf.as_mut_ptr().cast(), buf.len()) };
        if n >= 0 {
            return Ok(Some(n as usize));
        }
        let e = io::Error::last_os_error();
        match e.kind() {
            io::ErrorKind::WouldBlock | io::ErrorKind::Interrupted => Ok(None),
            _ => Err(e),
        }
    }

    /// Hands one packet to the kernel; false if the kernel refused it (it is
    /// then lost, as on a real link whose receiver is full).
    #[inline]
    pub fn write(&self, packet: &[u8]) -> bool {
        let n = unsafe { libc::write(self.fd, packet.as_ptr().cast(), packet.len()) };
        n == packet.len() as isize
    }
}

impl Drop for Tun {
    fn drop(&mut self) {
        unsafe { libc::close(self.fd) };
    }
}
